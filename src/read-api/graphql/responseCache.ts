/**
 * Board answers cached per projection position (docs/benchmarks.md). OMMS screens poll the same boards all
 * day; while the read model has not moved, the same board query has the same answer, so it is
 * served as the JSON text computed the first time.
 *
 * Key: the operation (its text as parsed, and its name), the variables, the process's output
 * settings (airport zone, whether personal data is shown) and the positions of the projectors
 * whose tables a board reads (`flights`, and `reference` for the …Info fields), read from the
 * read pool on every request — the same database the answer is read from. The flight projector
 * advances its checkpoint in the transaction that writes its rows, so once the rows of a decision
 * are visible the position is too: a request after that never finds an answer stored under the
 * older position. Entries of older positions are dropped as soon as a request sees the positions
 * move; the cache also keeps at most `maxBytes` of JSON (oldest dropped first).
 *
 * Only operations whose root fields are all `flights` are cached (flight(flid) and everything
 * else execute every time), and only answers without errors. A board POST is answered in front of
 * yoga, from the bytes it was sent as (boardFront.ts, which keeps those itself): requests it hands
 * on carry FRONT_REQUEST in their server context, and this plugin leaves them alone.
 */
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { print } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Queryable } from '../../platform/db.ts';
import { FLIGHTS_PROJECTOR, REFERENCE_PROJECTOR } from '../../readModel/projectorNames.ts';

export interface ResponseCacheOptions {
  readonly db: Queryable;
  /** Output settings that change an answer (zone, personal data): part of every key. */
  readonly settings: string;
  /** Most bytes of cached JSON text kept. */
  readonly maxBytes: number;
}

const CACHED_ROOT_FIELDS = new Set(['flights']);

/** Server-context flag of a request the HTTP front (boardFront.ts) caches itself. */
export const FRONT_REQUEST = 'msgxBoardFront';

export function cacheable(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const op = operationName != null ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
  if (op?.operation !== 'query') return undefined;
  const roots = op.selectionSet.selections;
  return roots.length > 0 && roots.every((s) => s.kind === 'Field' && CACHED_ROOT_FIELDS.has(s.name.value)) ? op : undefined;
}

/** The positions the cached answers depend on, as one string. */
export async function positions(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ p: string }>(
    `SELECT string_agg(name || ':' || position::text, ',' ORDER BY name) AS p FROM projection_checkpoint WHERE name = ANY($1::text[])`,
    [[FLIGHTS_PROJECTOR, REFERENCE_PROJECTOR]],
  );
  return rows[0]?.p ?? '';
}

export interface ResponseCache {
  readonly plugin: Plugin;
  /** Entries and bytes held (for tests and metrics). */
  stats(): { entries: number; bytes: number; hits: number; misses: number };
}

export function createResponseCache(opts: ResponseCacheOptions): ResponseCache {
  let at = '';
  const entries = new Map<string, string>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;
  // The printed text of each parsed document (yoga caches parsed documents, so this is per distinct query).
  const printed = new WeakMap<DocumentNode, string>();

  const store = (key: string, text: string): void => {
    if (text.length > opts.maxBytes) return;
    entries.set(key, text);
    bytes += text.length;
    for (const [k, v] of entries) {
      if (bytes <= opts.maxBytes) break;
      entries.delete(k);
      bytes -= v.length;
    }
  };

  const plugin: Plugin = {
    async onExecute({ args, setResultAndStopExecution }) {
      if ((args.contextValue as unknown as Record<string, unknown>)[FRONT_REQUEST] === true) return undefined;
      if (!cacheable(args.document, args.operationName)) return undefined;
      // The positions cannot be read: no caching for this request; executing it meets the same
      // database and reports what is wrong through the error masking (createYoga.ts).
      const now = await positions(opts.db).catch(() => undefined);
      if (now === undefined) return undefined;
      if (now !== at) {
        entries.clear();
        bytes = 0;
        at = now;
      }
      let text = printed.get(args.document);
      if (text === undefined) printed.set(args.document, (text = print(args.document)));
      const key = JSON.stringify([opts.settings, now, args.operationName ?? null, text, args.variableValues ?? {}]);
      const hit = entries.get(key);
      if (hit !== undefined) {
        hits++;
        // The text is the answer; `data` is parsed only if something asks for it.
        setResultAndStopExecution({ get data(): unknown { return (JSON.parse(hit) as { data: unknown }).data; }, stringify: () => hit } as never);
        return undefined;
      }
      misses++;
      return {
        onExecuteDone({ result, setResult }) {
          if (!('data' in result) || result.errors?.length || now !== at) return;
          // The fast path's answer is text already (its `stringify`); graphql-js's is an object.
          // (No spread of the fast path's result: that would read its lazy `data`, parsing the text.)
          const own = (result as { stringify?: (r: unknown) => string }).stringify;
          if (own) {
            store(key, own(result));
            return;
          }
          const json = JSON.stringify(result);
          store(key, json);
          setResult({ ...result, stringify: () => json } as never);
        },
      };
    },
  };
  return { plugin, stats: () => ({ entries: entries.size, bytes, hits, misses }) };
}
