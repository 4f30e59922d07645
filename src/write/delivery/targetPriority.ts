import type { Foreground } from '../../platform/slicing.ts';
import type { StepResult, TargetWorker } from './deliverRows.ts';

/**
 * `worker` whose run of steps is foreground work of `fg` (src/platform/slicing.ts): entered when a
 * step begins, held while steps keep delivering (WORKED), let go when one finds nothing due (idle,
 * a wait) or fails. The dispatcher holds its KAFKA_MSG and AIDX loops behind the KAFKA_SCHD loop
 * this way (docs/delivery.md "Which target first"): while schd batches go out one after the other,
 * each msg step waits for them, at most FOREGROUND_MAX_WAIT_MS each time, so a plan's flights
 * reach `schd` before its thousands of `msg` records take the writer's loop, and a schd target that
 * waits for its backoff holds nothing back.
 */
export function foregroundWorker(worker: TargetWorker, fg: Foreground): TargetWorker {
  let end: (() => void) | undefined;
  const release = (): void => {
    end?.();
    end = undefined;
  };
  return {
    target: worker.target,
    async step(): Promise<StepResult> {
      end ??= fg.enter();
      let result: StepResult;
      try {
        result = await worker.step();
      } catch (err) {
        release();
        throw err;
      }
      if (result.kind !== 'worked') release();
      return result;
    },
  };
}
