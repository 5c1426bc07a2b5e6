import type { AuditEventWire } from '../../../../src/base/contract/admin-audit';
import { changedFields, valueText } from './audit-changes';

/** A change's touched fields as a small table: field, before, after. */
export function AuditDiff({ event }: { event: AuditEventWire }) {
  const changes = changedFields(event.before, event.after);
  if (changes.length === 0) return <p className="small muted">No field changed.</p>;
  const label = `Changes of ${event.action} ${event.id}`;
  return (
    <table className="audit-diff" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.field}>
            <th scope="row">
              <code>{change.field}</code>
            </th>
            <td className={change.before === undefined ? 'muted' : 'audit-before'}>
              {event.before === null ? '(none)' : valueText(change.field, change.before)}
            </td>
            <td className={change.after === undefined ? 'muted' : 'audit-after'}>
              {event.after === null ? '(none)' : valueText(change.field, change.after)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
