// Shard 1 of the variants table (support/variant-table.ts), with the --read-only run.
import { describeVariantShard } from './support/variant-table.js';

describeVariantShard(1);
