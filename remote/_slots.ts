/**
 * A counting semaphore over the channels of one connection: `acquire()`
 * resolves with a release function once fewer than `size` are held; the rest
 * wait in order. `close()` rejects every waiter and every later acquire.
 *
 * Background processes hold their channel for as long as they live, so they
 * may hold (or wait for) at most `size - 1` channels together: one channel
 * is always left to calls that end on their own (foreground runs, whose
 * wall clock bounds them, and probes), so those never wait forever behind
 * background processes. `reserveBackground()` beyond that returns null.
 */
export class ChannelSlots {
  readonly #size: number;
  #held = 0;
  /** Background processes that hold or await a channel. */
  #background = 0;
  readonly #waiting: { grant: (release: () => void) => void; refuse: (error: Error) => void }[] =
    [];
  #closed: (() => Error) | null = null;

  constructor(size: number) {
    this.#size = size;
  }

  /** How many channels background processes may hold together. */
  get backgroundLimit(): number {
    return this.#size - 1;
  }

  /** A channel, once one is free; the function releases it. */
  acquire(): Promise<() => void> {
    if (this.#closed !== null) return Promise.reject(this.#closed());
    if (this.#held < this.#size) {
      this.#held++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((grant, refuse) => this.#waiting.push({ grant, refuse }));
  }

  /**
   * A background process's place, taken before its channel and given back
   * (by the function) as soon as it ended, or it did not start; null when
   * background processes already have {@linkcode backgroundLimit} places.
   */
  reserveBackground(): (() => void) | null {
    if (this.#background >= this.backgroundLimit) return null;
    this.#background++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#background--;
    };
  }

  close(error: () => Error): void {
    this.#closed = error;
    for (const waiter of this.#waiting.splice(0)) waiter.refuse(error());
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next !== undefined) next.grant(this.#releaser());
      else this.#held--;
    };
  }
}
