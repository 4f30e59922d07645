import type { ReadContext } from './context.ts';
import { badInput, MAX_PAGE_SIZE } from './errors.ts';
import { selectMessageIdsInState, type MessageFilter } from '../sql/selectMessageIdsInState.ts';
import { selectLatestOperationDay, selectPipelineHistory } from '../sql/selectConsoleFacts.ts';

const STATE = /^[A-Z_]{1,20}$/;
/** sender, type and subtype are META codes: short. */
const CODE_MAX = 40;
/** pipelineHistory reaches back at most this many minutes. */
export const HISTORY_MAX_MINUTES = 180;

type MessagesArgs = { states: string[]; first?: number | null } & MessageFilter;

export const operationsResolvers = {
  Query: {
    async messagesInState(_: unknown, args: MessagesArgs, ctx: ReadContext) {
      const first = args.first ?? 100;
      if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE) throw badInput(`first must be between 0 and ${MAX_PAGE_SIZE}`, 'first');
      if (args.states.length === 0 || args.states.length > 10 || !args.states.every((s) => STATE.test(s))) {
        throw badInput('states must be 1-10 state names such as DEAD, PARKED, FAILED', 'states');
      }
      for (const key of ['sender', 'type', 'subtype'] as const) {
        if ((args[key]?.length ?? 0) > CODE_MAX) throw badInput(`${key} must be at most ${CODE_MAX} characters`, key);
      }
      const ids = await selectMessageIdsInState(ctx.deps.db, args.states, args, first);
      return Promise.all(ids.map((id) => ctx.loaders.message.load(id)));
    },
    adminEnabled: (_: unknown, _args: unknown, ctx: ReadContext) => ctx.deps.adminEnabled === true,
    latestOperationDay: (_: unknown, _args: unknown, ctx: ReadContext) => selectLatestOperationDay(ctx.deps.db),
    async pipelineHistory(_: unknown, args: { minutes?: number | null }, ctx: ReadContext) {
      const minutes = args.minutes ?? 60;
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > HISTORY_MAX_MINUTES) throw badInput(`minutes must be between 1 and ${HISTORY_MAX_MINUTES}`, 'minutes');
      return selectPipelineHistory(ctx.deps.db, ctx.deps.clock.now(), minutes);
    },
  },
};
