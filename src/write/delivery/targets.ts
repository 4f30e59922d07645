/** The outbox targets the dispatcher drains: one list for every role (src/domain/contract.ts). */
export { isTarget, TARGETS, type Target } from '../../domain/contract.ts';
