/**
 * A mutant's identity for the triage: file, enclosing scope, mutator, original text and
 * replacement. Unlike Stryker's ids (numbered per run) and line numbers (shifted by any edit
 * above), these stay the same while the mutated code itself is unchanged, so a triage written on
 * one commit still applies after others edit the file elsewhere.
 */
import { createHash } from 'node:crypto';
import ts from 'typescript';

/** A location in Stryker's reports (mutation-testing-report-schema): lines and columns from 1. */
export interface Location {
  start: { line: number; column: number };
  end: { line: number; column: number };
}

export interface MutantKey {
  /** The file's name within fixtures/reference-server/. */
  file: string;
  /** Names of the declarations around the mutant, outermost first: `referenceBehaviour.authenticate`. */
  scope: string;
  mutator: string;
  /** The mutated code, whitespace collapsed; a long one shortened, with a digest of the whole. */
  original: string;
  replacement: string;
}

/** Longer texts are shortened to a head and a digest: a block statement can span a function. */
const MAX_TEXT = 100;
const HEAD = 70;

export function compactText(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  if (collapsed.length <= MAX_TEXT) return collapsed;
  const digest = createHash('sha256').update(collapsed).digest('hex').slice(0, 8);
  return `${collapsed.slice(0, HEAD)} … #${digest}`;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string | undefined {
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isVariableDeclaration(node) ||
    ts.isShorthandPropertyAssignment(node)
  ) {
    return node.name?.getText(source);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return undefined;
}

/** The scope of the code at `offset`: the named declarations that contain it, outermost first. */
export function scopeAt(source: ts.SourceFile, offset: number): string {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (offset < node.getStart(source) || offset >= node.getEnd()) return;
    const name = nameOf(node, source);
    if (name !== undefined) names.push(name);
    node.forEachChild(visit);
  };
  source.forEachChild(visit);
  return names.length === 0 ? '(module)' : names.join('.');
}

export function parseSource(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

export function offsetOf(source: ts.SourceFile, position: { line: number; column: number }): number {
  return source.getPositionOfLineAndCharacter(position.line - 1, position.column - 1);
}

export function keyOf(file: string, source: ts.SourceFile, mutant: { location: Location; mutatorName: string; replacement: string }): MutantKey {
  const start = offsetOf(source, mutant.location.start);
  const end = offsetOf(source, mutant.location.end);
  return {
    file,
    scope: scopeAt(source, start),
    mutator: mutant.mutatorName,
    original: compactText(source.text.slice(start, end)),
    replacement: compactText(mutant.replacement),
  };
}
