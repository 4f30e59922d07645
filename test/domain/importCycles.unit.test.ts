/**
 * No import cycle in src/ (docs/architecture.md): a module that is evaluated while one of its own imports is
 * still half-initialised sees `undefined` bindings (the CLI had main → commands → a command →
 * main). Type-only imports are erased at run time and do not count.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, SRC } from './support/sourceModules.ts';

/** The modules a file loads at run time: static imports and re-exports that are not `type`-only. */
function runtimeImports(file: string, text: string): string[] {
  return [...text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;']*?\sfrom\s+)?'(\.[^']+)'/gm)]
    .filter((m) => m[1] === undefined)
    .map((m) => resolve(dirname(file), m[2]!));
}

/** Every cycle as the sorted list of its files (Tarjan's strongly connected components of size > 1). */
function cycles(files: readonly { path: string; text: string }[]): string[][] {
  const graph = new Map(files.map((f) => [f.path, runtimeImports(f.path, f.text)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(relative(SRC, w));
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles', () => {
  it('src/ has none', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(cycles(files)).toEqual([]);
  });

  it('finds a cycle through a re-export, and ignores type-only imports', () => {
    const at = (p: string) => join(SRC, p);
    const sample = [
      { path: at('cli/main.ts'), text: "import { commands } from './commands.ts';" },
      { path: at('cli/commands.ts'), text: "export { start } from './start.ts';" },
      { path: at('cli/start.ts'), text: "import { UsageError } from './main.ts';" },
      { path: at('a/x.ts'), text: "import type { Y } from './y.ts';" },
      { path: at('a/y.ts'), text: "import { x } from './x.ts';" },
    ];
    expect(cycles(sample)).toEqual([['cli/commands.ts', 'cli/main.ts', 'cli/start.ts']]);
  });
});
