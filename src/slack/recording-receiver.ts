import type { App, Receiver, ReceiverEvent } from '@slack/bolt';

/**
 * A Bolt receiver wrapped (Bolt's own extension point, instead of patching the app): every
 * delivery passes `before` first, which may take it over (returns true) or let it go on to Bolt,
 * which acks it and runs the listeners. `before` is where a question is recorded in the ledger
 * before the ack, so a process killed mid-answer leaves it for the recovery sweep. Deliveries are
 * counted until their listeners finish, so `idle()` can tell when everything received is handled.
 */
export class RecordingReceiver implements Receiver {
  private readonly handling = new Set<Promise<void>>();

  constructor(
    readonly inner: Receiver,
    private readonly before: (event: ReceiverEvent) => Promise<boolean>,
  ) {}

  init(app: App): void {
    const forward = (event: ReceiverEvent) => this.track(this.deliver(app, event));
    // the inner receiver hands deliveries to app.processEvent: to ours instead, everything else as it is
    this.inner.init(
      new Proxy(app, {
        get: (target, key, receiver) => (key === 'processEvent' ? forward : Reflect.get(target, key, receiver)),
      }),
    );
  }

  start(...args: unknown[]): Promise<unknown> {
    return (this.inner.start as (...a: unknown[]) => Promise<unknown>)(...args);
  }

  stop(...args: unknown[]): Promise<unknown> {
    return (this.inner.stop as (...a: unknown[]) => Promise<unknown>)(...args);
  }

  /** Resolves once every delivery received so far has been handled (its listeners returned). */
  async idle(): Promise<void> {
    while (this.handling.size) await Promise.allSettled([...this.handling]);
  }

  private async deliver(app: App, event: ReceiverEvent): Promise<void> {
    if (await this.before(event)) return;
    await app.processEvent(event);
  }

  private track(work: Promise<void>): Promise<void> {
    this.handling.add(work);
    const done = () => this.handling.delete(work);
    work.then(done, done);
    return work;
  }
}
