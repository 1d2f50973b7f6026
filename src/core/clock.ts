/** The one clock source (milliseconds). Tests may set it to move time. */
let offsetMs = 0;

export const clock = {
  now(): number {
    return Date.now() + offsetMs;
  },
  /** Seconds, as the API speaks. */
  nowSeconds(): number {
    return Math.floor(clock.now() / 1000);
  },
  /** For tests: move the clock forward (or back) by ms. */
  advance(ms: number): void {
    offsetMs += ms;
  },
  reset(): void {
    offsetMs = 0;
  },
};

export const toSeconds = (ms: number): number => Math.floor(ms / 1000);
/** A time that may be unset (a scan not finished, a schedule paused), in Unix seconds. */
export const toSecondsOrNull = (ms: number | null): number | null => (ms === null ? null : toSeconds(ms));
