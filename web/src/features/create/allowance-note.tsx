import type { Allowance } from '../../../../src/base/contract/usage';
import { formatDate } from '../../lib/format';
import { imagesLeft } from './allowance';

/** What the tier leaves, under the form: images left today and this month, places in flight. */
export function AllowanceNote({ allowance, id }: { allowance: Allowance | null | undefined; id: string }) {
  if (!allowance) return null;
  const { images_per_day: day, images_per_month: month, tasks_in_flight: inFlight } = allowance;
  const parts: string[] = [];
  if (day)
    parts.push(`${day.remaining} of ${day.limit} images left today (resets ${formatDate(day.resets_at)})`);
  if (month)
    parts.push(
      `${month.remaining} of ${month.limit} left this month (resets ${formatDate(month.resets_at)})`,
    );
  if (inFlight) parts.push(`${inFlight.remaining} of ${inFlight.limit} tasks at once free`);
  if (parts.length === 0) return null;
  const none = imagesLeft(allowance) === 0;
  return (
    <p className={none ? 'allowance-note error-text' : 'allowance-note muted small'} id={id}>
      {none && 'No images left for now. '}
      {parts.join(' · ')}
    </p>
  );
}
