/**
 * Finds SQL text built in TypeScript with something spliced into it: template literals that read
 * as SQL (or are the first argument of `.query(…)` / `.execute(…)`) and contain `${…}`, and `+`
 * concatenations that do the same. Parsed with the TypeScript parser (syntax only, no type check),
 * so nested templates, comments and strings are told apart correctly.
 */
import ts from 'typescript';
import type { SourceFile } from './sourceFiles.ts';

export interface Splice {
  readonly file: string;
  readonly line: number;
  /** The spliced expression as written (whitespace collapsed), or the concatenation's source. */
  readonly expression: string;
  readonly kind: 'template' | 'concatenation';
}

/** DML shapes; a `${…}` inside is replaced by `X` first, so `UPDATE ${t} SET` still reads as SQL. */
const SQL_SHAPE = /\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\S+\s+SET\b|\bDELETE\s+FROM\b/;
const QUERY_METHODS = new Set(['query', 'execute']);

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

function isQueryArgument(node: ts.Node): boolean {
  const call = node.parent;
  return ts.isCallExpression(call) && call.arguments[0] === node &&
    ts.isPropertyAccessExpression(call.expression) && QUERY_METHODS.has(call.expression.name.text);
}

function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('X');
  return null;
}

/** Every `${…}` in SQL-looking templates and every concatenation that builds SQL text. */
export function findSqlSplices(files: readonly SourceFile[]): Splice[] {
  const out: Splice[] = [];
  for (const f of files) {
    const sf = ts.createSourceFile(f.file, f.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const lineOf = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
    const visit = (node: ts.Node): void => {
      if (ts.isTemplateExpression(node) && (SQL_SHAPE.test(literalText(node)!) || isQueryArgument(node))) {
        for (const span of node.templateSpans) {
          out.push({ file: f.file, line: lineOf(span.expression), expression: collapse(span.expression.getText(sf)), kind: 'template' });
        }
      }
      if (isPlus(node) && !isPlus(node.parent)) {
        const parts = flattenPlus(node);
        const sqlPart = parts.some((p) => { const t = literalText(p); return t !== null && SQL_SHAPE.test(t); });
        const spliced = parts.some((p) => literalText(p) === null);
        if ((sqlPart || isQueryArgument(node)) && spliced) {
          out.push({ file: f.file, line: lineOf(node), expression: collapse(node.getText(sf)), kind: 'concatenation' });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

function isPlus(node: ts.Node): node is ts.BinaryExpression {
  return ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken;
}

function flattenPlus(node: ts.Expression): ts.Expression[] {
  if (ts.isParenthesizedExpression(node)) return flattenPlus(node.expression);
  if (isPlus(node)) {
    return [...flattenPlus(node.left), ...flattenPlus(node.right)];
  }
  return [node];
}
