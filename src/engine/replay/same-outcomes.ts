// Whether a verified event's outcomes are the recorded ones, as a replay's diff judges them
// (event-signature.ts sameEvent: event, owner, status, reason and response; durations are timing).
import type { ListenerOutcome } from '../journal.js';
import { sameValue } from '../session/event-signature.js';

export function sameOutcomes(recorded: readonly ListenerOutcome[], now: readonly ListenerOutcome[]): boolean {
  if (recorded.length !== now.length) return false;
  for (let i = 0; i < recorded.length; i++) {
    const x = recorded[i]!;
    const y = now[i]!;
    if (x.event !== y.event || x.owner !== y.owner || x.status !== y.status || x.reason !== y.reason) return false;
    if (!sameValue(x.response || undefined, y.response || undefined)) return false;
  }
  return true;
}
