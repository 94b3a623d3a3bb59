// Shard 2 of the variants table (support/variant-table.ts).
import { describeVariantShard } from './support/variant-table.js';

describeVariantShard(2);
