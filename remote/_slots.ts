/**
 * A counting semaphore over the channels of one connection: `acquire()`
 * resolves with a release function once fewer than `size` are held; the rest
 * wait in order. `close()` rejects every waiter and every later acquire.
 */
export class ChannelSlots {
  readonly #size: number;
  #held = 0;
  readonly #waiting: { grant: (release: () => void) => void; refuse: (error: Error) => void }[] =
    [];
  #closed: (() => Error) | null = null;

  constructor(size: number) {
    this.#size = size;
  }

  acquire(): Promise<() => void> {
    if (this.#closed !== null) return Promise.reject(this.#closed());
    if (this.#held < this.#size) {
      this.#held++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((grant, refuse) => this.#waiting.push({ grant, refuse }));
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
