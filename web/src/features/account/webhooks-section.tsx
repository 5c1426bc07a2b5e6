import { useEffect, useId, useState } from 'react';
import { api } from '../../lib/api';
import { formatDate } from '../../lib/format';
import type { WebhookDelivery, WebhookSecretRotated } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmDialog } from '../../ui/dialog';

/** The webhook signing secret (fetched on demand, never kept on the page longer than shown) and recent deliveries. */
export function WebhooksSection() {
  const [secret, setSecret] = useState<string>();
  // After a rotation: until when the replaced secret still signs (null: it no longer does).
  const [replacedUntil, setReplacedUntil] = useState<number | null>();
  const [deliveries, setDeliveries] = useState<WebhookDelivery[]>();
  // One line of trouble for both calls: the listing at mount and the secret on demand.
  const { error, run } = useAction();
  const [confirming, setConfirming] = useState(false);
  const rotation = useAction();
  const secretId = useId();

  useEffect(() => {
    void run(async () => {
      setDeliveries(
        (await api.get<{ items: WebhookDelivery[] }>('/api/v1/webhooks/deliveries?limit=5')).items,
      );
    });
  }, [run]);

  const reveal = () =>
    run(async () => {
      setSecret((await api.get<{ secret: string }>('/api/v1/user/webhook-secret')).secret);
    });

  const rotate = async () => {
    const rotated = await rotation.run(async () => {
      const answer = await api.post<WebhookSecretRotated>('/api/v1/user/webhook-secret/rotate');
      setSecret(answer.secret);
      setReplacedUntil(answer.previous_secret_expires_at);
    });
    if (rotated) setConfirming(false);
  };
  const askToRotate = () => {
    rotation.reset();
    setConfirming(true);
  };

  return (
    <div className="stack">
      {secret ? (
        <div className="stack">
          <label className="field-label" htmlFor={secretId}>
            Signing secret
          </label>
          <div className="row">
            <input
              id={secretId}
              className="mono grow"
              readOnly
              value={secret}
              onFocus={(event) => event.target.select()}
            />
            <CopyButton text={secret} label="Copy secret" />
          </div>
          {replacedUntil ? (
            <p className="muted small" role="status">
              New secret. Deliveries also carry a signature with the old one until {formatDate(replacedUntil)}
              .
            </p>
          ) : null}
          <div>
            <button type="button" className="button" onClick={askToRotate}>
              Rotate secret
            </button>
          </div>
        </div>
      ) : (
        <div className="row">
          <button type="button" className="button" onClick={reveal}>
            Show signing secret
          </button>
          <button type="button" className="button" onClick={askToRotate}>
            Rotate secret
          </button>
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          message={
            <p>
              A new secret signs every delivery from now on. For 24 hours deliveries also carry a signature
              made with the current one, so your receiver keeps accepting them while you switch it to the new
              secret.
            </p>
          }
          confirmLabel="Rotate secret"
          busy={rotation.busy}
          error={rotation.error}
          onConfirm={() => void rotate()}
          onCancel={() => setConfirming(false)}
        />
      )}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {deliveries && deliveries.length > 0 ? (
        <table className="deliveries">
          <caption className="field-label">Recent deliveries</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td className="mono small">{d.type}</td>
                <td>{d.state}</td>
                <td>{d.attempts}</td>
                <td className="small">{d.last_status_code ?? d.last_error ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : deliveries ? (
        <p className="muted small">No deliveries yet.</p>
      ) : null}
    </div>
  );
}
