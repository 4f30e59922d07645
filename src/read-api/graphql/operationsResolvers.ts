import type { ReadContext } from './context.ts';
import { badInput, MAX_PAGE_SIZE } from './errors.ts';
import { selectMessageIdsInState } from '../sql/selectMessageIdsInState.ts';

const STATE = /^[A-Z_]{1,20}$/;

export const operationsResolvers = {
  Query: {
    async messagesInState(_: unknown, args: { states: string[]; errorClass?: string | null; first?: number | null }, ctx: ReadContext) {
      const first = args.first ?? 100;
      if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE) throw badInput(`first must be between 0 and ${MAX_PAGE_SIZE}`, 'first');
      if (args.states.length === 0 || args.states.length > 10 || !args.states.every((s) => STATE.test(s))) {
        throw badInput('states must be 1-10 state names such as DEAD, PARKED, FAILED', 'states');
      }
      const ids = await selectMessageIdsInState(ctx.deps.db, args.states, args.errorClass ?? null, first);
      return Promise.all(ids.map((id) => ctx.loaders.message.load(id)));
    },
    adminEnabled: (_: unknown, _args: unknown, ctx: ReadContext) => ctx.deps.adminEnabled === true,
  },
};
