/**
 * One real page load per check, not per engine. A file whose checks run on each engine (engines()) loads its pages
 * for real on the first engine; the agents of its later engines are handed the results of those same loads, in the
 * same order, instead of loading the pages again. What a load measures does not depend on the store engine (the
 * runner knows nothing of the store: DESIGN.md), and the first engine's half holds it against the fixture's truths;
 * what the service does with a result (rows, credits, pages, history, runs, files, secrets scrubbed) does depend on
 * it, and every engine gets a real result to do it with. A later engine finding nothing recorded (its half run
 * alone, say with --test-name-pattern) loads the page itself.
 *
 * A failed load is replayed as the same failure. Results are copied on the way in and out, so what the service does
 * to a result it was handed (warnings added, say) reaches neither the recording nor another engine.
 */
import { runTest } from '../../src/runner/run.js';
import type { RunResult, RunSpec } from '../../src/runner/types.js';
import { engines, type EngineName } from './server.js';

type Run = (spec: RunSpec) => Promise<RunResult>;
type Outcome = { result: RunResult } | { error: unknown };

/** A deep copy of a result: Buffers stay Buffers, Maps stay Maps. */
function copy<T>(value: T): T {
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  if (ArrayBuffer.isView(value)) return (value as unknown as Uint8Array).slice() as T;
  if (value instanceof Date) return new Date(value) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, copy(v)])) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)])) as T;
  }
  return value;
}

export interface ReplayedLoads {
  /**
   * The agent's `run` on `engine` (pass it as the startServer override): on the first engine the real load (`real`,
   * the runner by default), recorded under `key(spec)`; on a later engine the next recorded outcome under that key.
   */
  runFor(engine: EngineName, real?: Run): Run;
  /** Whether `engine` loads pages itself (the first engine): launch browsers ahead only there. */
  loadsOn(engine: EngineName): boolean;
  /** Loads made for real and outcomes replayed so far (for a file's report of what it did). */
  readonly counts: { real: number; replayed: number };
}

/** `key`: what identifies a load across engines (by default the tested URL: share the fixture site between engines). */
export function replayedLoads(key: (spec: RunSpec) => string = (spec) => spec.options.url): ReplayedLoads {
  const recorded = new Map<string, Outcome[]>();
  const counts = { real: 0, replayed: 0 };
  const first = (engine: EngineName) => engine === engines()[0];
  return {
    counts,
    loadsOn: first,
    runFor(engine, real = runTest) {
      const live: Run = async (spec) => {
        counts.real++;
        return real(spec);
      };
      if (first(engine)) {
        return async (spec) => {
          const k = key(spec);
          const list = recorded.get(k) ?? [];
          recorded.set(k, list);
          try {
            const result = await live(spec);
            list.push({ result: copy(result) });
            return result;
          } catch (error) {
            list.push({ error });
            throw error;
          }
        };
      }
      const cursor = new Map<string, number>();
      return async (spec) => {
        const k = key(spec);
        const i = cursor.get(k) ?? 0;
        const outcome = recorded.get(k)?.[i];
        if (!outcome) return live(spec);
        cursor.set(k, i + 1);
        counts.replayed++;
        if ('error' in outcome) throw outcome.error;
        return copy(outcome.result);
      };
    },
  };
}
