/** Every test file (setupFiles): a child process still running when the file's tests end is killed. */
import { afterAll } from 'vitest';
import { killMsgxChildren } from './msgxProcess.ts';

afterAll(() => killMsgxChildren());
