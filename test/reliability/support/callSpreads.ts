/**
 * Finds spread arguments of calls and `new` (`f(...xs)`, `a.push(...b)`, `Math.max(...xs)`,
 * `new X(...xs)`) with the TypeScript compiler API. A spread
 * argument puts every element on the stack: at ~100k elements V8 throws `RangeError: Maximum call
 * stack size exceeded` (docs/projections.md "Big decisions"). Array-literal spreads (`[...a, ...b]`)
 * are iterated, not passed on the stack, and are not reported.
 */
import ts from 'typescript';
import type { SourceFile } from './sourceFiles.ts';

export interface CallSpread {
  readonly file: string;
  readonly line: number;
  /** The whole call, whitespace collapsed (what the allow-list names). */
  readonly call: string;
}

export function callSpreads(source: SourceFile): CallSpread[] {
  const sf = ts.createSourceFile(source.file, source.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: CallSpread[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments?.some(ts.isSpreadElement)) {
      const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      found.push({ file: source.file, line: line + 1, call: node.getText(sf).replace(/\s+/g, ' ') });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}
