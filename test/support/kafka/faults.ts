export interface ProduceFailure {
  readonly errorCode: number;
  /** Append the batch, then answer with the error anyway (a response lost after the write). */
  readonly afterAppend: boolean;
}

/** Counters behind `broker.faults`; each armed fault is consumed by the requests it hits. */
export class FaultState {
  private produceFailures: ProduceFailure[] = [];
  private requestsBeforeDrop: number | null = null;

  failNextProduce(count: number, failure: ProduceFailure): void {
    this.produceFailures = Array.from({ length: count }, () => failure);
  }

  takeProduceFailure(): ProduceFailure | null {
    return this.produceFailures.shift() ?? null;
  }

  dropAfter(requests: number): void {
    this.requestsBeforeDrop = requests;
  }

  /** Counts one incoming request; true when its connection must be destroyed instead. */
  shouldDropConnection(): boolean {
    if (this.requestsBeforeDrop === null) return false;
    if (this.requestsBeforeDrop > 0) {
      this.requestsBeforeDrop -= 1;
      return false;
    }
    this.requestsBeforeDrop = null;
    return true;
  }
}
