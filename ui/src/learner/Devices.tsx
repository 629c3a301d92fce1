import { useCallback, useEffect, useState } from 'react';
import { ApiError, listMyDevices, releaseDevice, type LearnerDevice } from './api';

interface Props {
  session: string;
  onSessionEnded: () => void;
  /** Releasing this very device ends its session: the page signs out. */
  onReleasedThisDevice: () => void;
}

const APP_NAME = { learning: 'Learning app', code: 'Coding app' } as const;

/** The devices holding a seat on the student's license (3 at most): freeing one lets another device sign in. */
export function Devices({ session, onSessionEnded, onReleasedThisDevice }: Props) {
  const [devices, setDevices] = useState<LearnerDevice[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [releasing, setReleasing] = useState<string | null>(null);
  const [released, setReleased] = useState<string | null>(null);

  const refused = useCallback(
    (err: unknown, fallback: string) => {
      if (err instanceof ApiError && err.status === 401) onSessionEnded();
      else setError(err instanceof Error ? err.message : fallback);
    },
    [onSessionEnded],
  );

  useEffect(() => {
    let current = true;
    listMyDevices(session).then(
      (items) => current && setDevices(items),
      (err: unknown) => current && refused(err, 'Your devices could not be loaded.'),
    );
    return () => {
      current = false;
    };
  }, [session, refused]);

  async function release(device: LearnerDevice) {
    setReleasing(device.seat_id);
    setError(null);
    try {
      await releaseDevice(session, device.seat_id);
      if (device.current) return onReleasedThisDevice();
      setDevices((list) => list?.filter((item) => item.seat_id !== device.seat_id) ?? null);
      setReleased(device.device_name ?? 'The device');
    } catch (err) {
      refused(err, 'The device could not be released.');
    } finally {
      setReleasing(null);
    }
  }

  return (
    <section aria-labelledby="learner-devices-title" className="learner-devices">
      <h2 id="learner-devices-title">My devices</h2>
      <p className="learner-note">
        Your account can be used on 3 devices at once. Release one you no longer use so another can sign in; releasing this device signs you out here.
      </p>
      {error && (
        <p role="alert" className="learner-error">
          {error}
        </p>
      )}
      <p role="status">{released ? `${released} was released.` : ''}</p>
      {devices === null && !error && <p>Loading your devices…</p>}
      {devices?.length === 0 && <p>No device holds a seat right now.</p>}
      {devices && devices.length > 0 && (
        <ul className="learner-exams">
          {devices.map((device) => {
            const name = device.device_name ?? 'Unnamed device';
            return (
              <li key={device.seat_id} className="learner-card">
                <h3>
                  {name}
                  {device.current && <span className="learner-badge">This device</span>}
                </h3>
                <dl className="learner-facts">
                  <dt>App</dt>
                  <dd>{APP_NAME[device.app]}</dd>
                  <dt>Last used</dt>
                  <dd>{new Date(device.last_seen_at).toLocaleString()}</dd>
                  <dt>Since</dt>
                  <dd>{new Date(device.activated_at).toLocaleString()}</dd>
                </dl>
                <button
                  type="button"
                  className="learner-secondary"
                  onClick={() => void release(device)}
                  disabled={releasing !== null}
                  aria-label={`Release ${name}${device.current ? ' (this device: signs you out)' : ''}`}
                >
                  {releasing === device.seat_id ? 'Releasing…' : 'Release'}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
