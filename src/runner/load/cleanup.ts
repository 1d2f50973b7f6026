/**
 * The load's clean-up, whatever became of it: the run's deadline disposed of and its browser closed. An agent's load
 * hands its browser over to close while the report is made (the next load waits for it, launch-ahead.ts quiet()).
 */
import { closeGuarded } from '../launch-ahead.js';
import type { LoadPlan } from './context.js';

export async function cleanUp(plan: LoadPlan): Promise<void> {
  const { spec, deadline, timer } = plan;
  deadline.dispose();
  timer.restart();
  if (spec.ahead) spec.ahead.retire(deadline.launched);
  else await closeGuarded(deadline.launched);
  timer.end('close');
  timer.finish();
}
