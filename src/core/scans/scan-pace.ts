/**
 * A running scan's pace (issue 48, "every wait shows where it is"): how many pages a minute it measures, from its first
 * page's load to now, and so about how long its pages still to run will take. Pure: the caller reads the times.
 */
import { aboutText } from '../tests/phases.js';

export interface ScanPace {
  /** Pages done (measured or failed) a minute, since the scan's first page started loading. */
  perMinute: number;
  /** About how long the pages left take at that pace (ms). */
  leftMs: number;
}

/** The pace once a page is done and the first one's start is known (`now`: the moment it is read as of); none before. */
export function scanPace(o: { done: number; left: number; firstStarted: number | null; now: number }): ScanPace | undefined {
  if (o.firstStarted === null || o.done < 1) return undefined;
  const minutes = Math.max(1, o.now - o.firstStarted) / 60_000;
  const perMinute = o.done / minutes;
  return { perMinute, leftMs: Math.max(0, o.left) / perMinute * 60_000 };
}

/** "2.4 pages a minute", "12 pages a minute". */
export function rateText(p: ScanPace): string {
  const n = p.perMinute < 10 ? Math.round(p.perMinute * 10) / 10 : Math.round(p.perMinute);
  return `${n.toLocaleString('en')} ${n === 1 ? 'page' : 'pages'} a minute`;
}

/** "about 2 min left". */
export const leftText = (p: ScanPace): string => `${aboutText(p.leftMs)} left`;
