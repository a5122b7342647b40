// Feedback that arrived before its event (a user_report sent as the app crashed, before the event's own envelope)
// learns the event's issue when the event is stored: its fingerprint is set in the event's commit. One probe per new
// event into feedback_waiting (migration 0021), a partial index that holds only feedback still waiting: usually empty.
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

export const feedbackParts: readonly StatementPart[] = [
  part({
    name: 'linked_feedback',
    reads: ['new_events'],
    writes: ['feedback'],
    query: sql`update feedback f set fingerprint = n.fingerprint from new_events n
    where f.app_key = n.app_key and f.event_id = n.event_id and f.fingerprint is null and f.event_id is not null`,
  }),
];
