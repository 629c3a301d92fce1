import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, recordFocusLost, submitAttempt, type Attempt, type AttemptFile, type LearnerExam, type SubmissionReceipt } from './api';
import { Archives } from './Archives';
import { AttemptFiles } from './AttemptFiles';
import { formatDuration, timeLeft } from './clock';
import { CodingFacts, Instructions } from './ExamDetails';
import { ProctoringPanel, useProctoring } from './Proctoring';
import { loadDraft, loadDraftFiles, saveDraft, saveDraftFiles } from './storage';

/** CodeMirror loads with the first coding exam opened, not with the page. */
const CodeEditor = lazy(() => import('./CodeEditor').then((module) => ({ default: module.CodeEditor })));

interface Props {
  session: string;
  exam: LearnerExam;
  attempt: Attempt;
  /** Server clock minus this device's clock, so the countdown follows the server's deadline. */
  clockOffsetMs: number;
  onSubmitted: (receipt: SubmissionReceipt) => void;
  onBack: () => void;
  onSessionEnded: () => void;
}

/** With this little time left the answer is sent on its own: a submission after the deadline is refused. */
const AUTO_SUBMIT_MS = 10_000;
/**
 * How long a submit waits for the recordings' last parts. Parts still waiting after it are sent
 * after the submission (the appliance takes them for 5 minutes), so the answer is never late.
 */
const RECORDING_FLUSH_MS = 8_000;

/**
 * What leaving the window means, said plainly. A coding exam is worked on with the starter's tests
 * run on the student's own computer, so leaving is expected there; the teacher sees the count only.
 */
function leavingNote(exam: LearnerExam, proctored: boolean, times: number): string {
  const sofar = times > 0 ? ` (${times} ${times === 1 ? 'time' : 'times'} so far)` : '';
  if (exam.code_spec) {
    return `Run the starter's tests on your own computer as often as you like: leaving this window to do so is fine. Your teacher sees how many times the window was left${sofar}, not what you did elsewhere.`;
  }
  return proctored
    ? `Leaving this window is noted for your teacher as part of this exam's proctoring${sofar}.`
    : `Your teacher sees how many times this window was left${sofar}.`;
}

/** Said once each by screen readers as the time runs low. */
function warning(remaining: number | null): string {
  if (remaining === null || remaining > 5 * 60_000) return '';
  return remaining > 60_000 ? 'Five minutes left.' : 'Less than one minute left. Your answer will be submitted automatically.';
}

export function AttemptView({ session, exam, attempt, clockOffsetMs, onSubmitted, onBack, onSessionEnded }: Props) {
  const [answer, setAnswer] = useState(() => loadDraft(attempt.id));
  const answerRef = useRef(answer);
  const [files, setFiles] = useState(() => loadDraftFiles(attempt.id));
  const filesRef = useRef<readonly AttemptFile[]>(files);
  const [uploads, setUploads] = useState(0);
  const [now, setNow] = useState(() => Date.now() + clockOffsetMs);
  const [phase, setPhase] = useState<'working' | 'submitting' | 'closed'>('working');
  const [error, setError] = useState<string | null>(null);
  const [focusLost, setFocusLost] = useState(0);
  const submitting = useRef(false);
  const proctor = useProctoring(session, attempt.id, exam.proctoring, onSessionEnded);
  const { stopAll } = proctor;

  const expiresAt = attempt.expires_at ? Date.parse(attempt.expires_at) : null;
  const remaining = timeLeft(attempt, 0, now);

  useEffect(() => {
    if (expiresAt === null) return;
    const timer = window.setInterval(() => setNow(Date.now() + clockOffsetMs), 1000);
    return () => window.clearInterval(timer);
  }, [expiresAt, clockOffsetMs]);

  // Leaving the window is a proctoring event the teacher sees; the student is told so below.
  useEffect(() => {
    const onBlur = () => {
      if (submitting.current) return;
      setFocusLost((n) => n + 1);
      recordFocusLost(session, attempt.id, new Date()).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) onSessionEnded();
      });
    };
    window.addEventListener('blur', onBlur);
    return () => window.removeEventListener('blur', onBlur);
  }, [session, attempt.id, onSessionEnded]);

  const submit = useCallback(async () => {
    if (submitting.current) return;
    submitting.current = true;
    setPhase('submitting');
    setError(null);
    try {
      await stopAll(RECORDING_FLUSH_MS);
      const receipt = await submitAttempt(session, attempt.id, answerRef.current, filesRef.current);
      saveDraft(attempt.id, null);
      saveDraftFiles(attempt.id, null);
      onSubmitted(receipt);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return onSessionEnded();
      if (err instanceof ApiError && err.status === 409) {
        // Already submitted, time over, or the exam was closed: nothing more can be sent.
        setPhase('closed');
        setError(err.message);
        return;
      }
      submitting.current = false;
      setPhase('working');
      setError(`${err instanceof Error ? err.message : 'The answer could not be sent.'} Your answer is kept on this page; try again.`);
    }
  }, [session, attempt.id, onSubmitted, onSessionEnded, stopAll]);

  useEffect(() => {
    if (remaining !== null && remaining <= AUTO_SUBMIT_MS && phase === 'working') void submit();
  }, [remaining, phase, submit]);

  const proctored = Object.values(exam.proctoring).some(Boolean);
  const keepFiles = (next: AttemptFile[]) => {
    setFiles(next);
    filesRef.current = next;
    saveDraftFiles(attempt.id, next);
  };
  const keepAnswer = useCallback(
    (text: string) => {
      setAnswer(text);
      answerRef.current = text;
      saveDraft(attempt.id, text);
    },
    [attempt.id],
  );

  return (
    <section aria-labelledby="learner-attempt-title">
      <h1 id="learner-attempt-title">{exam.title}</h1>
      {remaining !== null ? (
        <p className="learner-timer">
          Time left:{' '}
          <span role="timer" aria-live="off">
            {formatDuration(remaining)}
          </span>
        </p>
      ) : (
        <p className="learner-timer">No time limit.</p>
      )}
      <p className="learner-visually-hidden" aria-live="polite">
        {warning(remaining)}
      </p>
      <p className="learner-note">
        {leavingNote(exam, proctored, focusLost)}
        {remaining !== null ? ' When the time is up, what you have typed and the files sent so far are submitted automatically.' : ''}
      </p>
      <ProctoringPanel proctor={proctor} disabled={phase !== 'working'} />
      <p className="learner-note">{exam.due_date ? `Due ${new Date(exam.due_date).toLocaleString()}.` : 'No due date.'}</p>
      {/* The task first, then what to work with. */}
      {exam.description.trim() && (
        <section aria-labelledby="learner-instructions-title" className="learner-card">
          <h2 id="learner-instructions-title">Instructions</h2>
          <Instructions markdown={exam.description} headingOffset={2} />
        </section>
      )}
      {exam.code_spec && <CodingFacts spec={exam.code_spec} inAttempt />}
      <Archives session={session} examId={exam.id} files={exam.files} onSessionEnded={onSessionEnded} />

      {error && (
        <p role="alert" className="learner-error">
          {error}
        </p>
      )}

      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        {exam.code_spec ? (
          <>
            <p id="learner-answer-label" className="learner-label">
              Your code
            </p>
            <p id="learner-editor-keys" className="learner-note">
              Tab indents. To leave the editor with the keyboard, press Esc, then Tab.
            </p>
            <Suspense fallback={<p className="learner-note">Loading the editor…</p>}>
              <CodeEditor
                labelledBy="learner-answer-label"
                describedBy="learner-editor-keys"
                toolchain={exam.code_spec.toolchain ?? ''}
                initial={answer}
                disabled={phase !== 'working'}
                onChange={keepAnswer}
              />
            </Suspense>
          </>
        ) : (
          <>
            <label htmlFor="learner-answer">Your answer</label>
            <textarea id="learner-answer" rows={14} value={answer} disabled={phase !== 'working'} onChange={(event) => keepAnswer(event.target.value)} />
          </>
        )}
        <AttemptFiles
          session={session}
          attemptId={attempt.id}
          files={files}
          onChange={keepFiles}
          onUploadsChange={setUploads}
          disabled={phase !== 'working'}
          onSessionEnded={onSessionEnded}
        />
        <div className="learner-actions">
          <button type="submit" disabled={phase !== 'working' || uploads > 0}>
            {phase === 'submitting' ? 'Submitting…' : uploads > 0 ? 'Sending files…' : 'Submit'}
          </button>
          <button type="button" className="learner-secondary" onClick={onBack} disabled={phase === 'submitting'}>
            Back to my exams
          </button>
        </div>
        {phase === 'working' && remaining !== null && <p className="learner-note">Going back does not stop the clock.</p>}
      </form>
    </section>
  );
}
