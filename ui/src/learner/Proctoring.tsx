import { Fragment, useCallback, useEffect, useRef, useState } from 'react';
import { finishRecording, listRecordings, type RecordingSource } from './api';
import { ChunkedRecorder, requestStream, type RecorderState } from './recorder';

const SOURCE_LABEL: Record<RecordingSource, string> = { camera: 'Camera', screen: 'Screen' };

/** The sources an exam's `proctoring` asks for, camera first. */
export function proctoredSources(proctoring: Record<string, unknown>): RecordingSource[] {
  return (['camera', 'screen'] as const).filter((source) => proctoring[source] === true);
}

export interface Proctor {
  sources: RecordingSource[];
  states: Partial<Record<RecordingSource, RecorderState>>;
  /** Starts the given sources (all by default); call it from a click, which screen capture needs. */
  start: (only?: RecordingSource[]) => void;
  /** Stops every recorder and waits until what was recorded is sent, for at most `timeoutMs`. */
  stopAll: (timeoutMs: number) => Promise<void>;
}

/** The attempt's recorders, stopped (and their recordings finished) when the attempt view goes away. */
export function useProctoring(session: string, attemptId: string, proctoring: Record<string, unknown>, onSessionEnded: () => void): Proctor {
  const sources = proctoredSources(proctoring);
  const [states, setStates] = useState<Partial<Record<RecordingSource, RecorderState>>>({});
  const recorders = useRef(new Map<RecordingSource, ChunkedRecorder>());

  const start = useCallback(
    (only?: RecordingSource[]) => {
      for (const source of only ?? proctoredSources(proctoring)) {
        const running = recorders.current.get(source);
        if (running) void running.stop();
        const recorder = new ChunkedRecorder({
          session,
          attemptId,
          source,
          onState: (state) => setStates((all) => ({ ...all, [source]: state })),
          onSessionEnded,
        });
        recorders.current.set(source, recorder);
        // Asked for synchronously, inside the click.
        void recorder.start(requestStream(source));
      }
    },
    [session, attemptId, proctoring, onSessionEnded],
  );

  const stopAll = useCallback(async (timeoutMs: number) => {
    const stopping = Promise.all([...recorders.current.values()].map((recorder) => recorder.stop()));
    await Promise.race([stopping, new Promise((resolve) => window.setTimeout(resolve, timeoutMs))]);
  }, []);

  useEffect(() => {
    const running = recorders.current;
    // Recordings this attempt left open before a reload cannot be continued (a new recorder starts a
    // new file, header and all): finish them, so they reach the submission now.
    listRecordings(session, attemptId).then(
      (items) => items.filter((item) => !item.finished_at).forEach((item) => void finishRecording(session, attemptId, item.id).catch(() => undefined)),
      () => undefined,
    );
    return () => {
      for (const recorder of running.values()) void recorder.stop();
      running.clear();
    };
  }, [session, attemptId]);

  return { sources, states, start, stopAll };
}

function describe(state: RecorderState | undefined): string {
  switch (state?.kind) {
    case undefined:
    case 'idle':
      return 'Not started.';
    case 'asking':
      return 'Waiting for your permission…';
    case 'recording':
      return `Recording. ${state.uploaded} ${state.uploaded === 1 ? 'part' : 'parts'} sent${state.pending > 0 ? `, ${state.pending} waiting` : ''}.`;
    case 'finishing':
      return 'Sending the last part…';
    case 'finished':
      return `Recording finished and sent (${state.uploaded} ${state.uploaded === 1 ? 'part' : 'parts'}).`;
    case 'refused':
    case 'failed':
      return state.message;
  }
}

/** What is recorded, its state in words, and the button that asks for the permissions. */
export function ProctoringPanel({ proctor, disabled }: { proctor: Proctor; disabled: boolean }) {
  if (proctor.sources.length === 0) return null;
  const states = proctor.sources.map((source) => proctor.states[source]);
  const notStarted = states.every((state) => state === undefined);
  const retry = proctor.sources.filter((source) => ['refused', 'failed'].includes(proctor.states[source]?.kind ?? ''));
  const words = proctor.sources.map((source) => SOURCE_LABEL[source].toLowerCase()).join(' and ');
  return (
    <section className="learner-card learner-proctoring" aria-labelledby="learner-proctoring-title">
      <h2 id="learner-proctoring-title">Proctoring</h2>
      <p>This exam records your {words} while you work. The recording goes only to your school, and only staff allowed to grade see it.</p>
      <dl className="learner-facts">
        {proctor.sources.map((source) => (
          <Fragment key={source}>
            <dt>{SOURCE_LABEL[source]}</dt>
            <dd>
              <span role="status" data-testid={`recorder-${source}`}>
                {describe(proctor.states[source])}
              </span>
            </dd>
          </Fragment>
        ))}
      </dl>
      {notStarted && (
        <button type="button" onClick={() => proctor.start()} disabled={disabled}>
          Allow {words} and start recording
        </button>
      )}
      {retry.length > 0 && (
        <button type="button" className="learner-secondary" onClick={() => proctor.start(retry)} disabled={disabled}>
          Try again
        </button>
      )}
    </section>
  );
}
