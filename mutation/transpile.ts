/**
 * Stryker's build command in its sandbox (`node dist/mutation/transpile.js`): the instrumented
 * TypeScript of the reference server (every mutant compiled in, each switched on by
 * __STRYKER_ACTIVE_MUTANT__) transpiled over the sandbox's copy of dist/, the rest of which is the
 * working tree's fresh build. One build per Stryker run, not one per mutant, and no type check:
 * the instrumented files are not meant to type-check (Stryker marks them @ts-nocheck).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';

const SOURCE = 'fixtures/reference-server';
const TARGET = join('dist', SOURCE);

for (const name of await readdir(SOURCE)) {
  if (!name.endsWith('.ts')) continue;
  const source = await readFile(join(SOURCE, name), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: name,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true },
  });
  await writeFile(join(TARGET, name.replace(/\.ts$/, '.js')), outputText);
}
