import { useEffect, useRef, useState } from 'react';
import { ApiError, listMyExams, startAttempt, type Attempt, type LearnerExam } from './api';
import { formatDuration, timeLeft } from './clock';
import { CodingFacts, Instructions } from './ExamDetails';

interface Props {
  session: string;
  /** The exam the school's link pointed to (`redirect` `exam:<id>`), shown first. */
  highlightExamId: string | null;
  /** The exam this tab was taking before a reload: reopened at once while its attempt's time lasts. */
  resumeExamId: string | null;
  onStarted: (exam: LearnerExam, attempt: Attempt, clockOffsetMs: number) => void;
  onSessionEnded: () => void;
}

const STATE_TEXT = {
  submitted: 'Submitted, waiting for a grade',
  graded: 'Graded',
  resubmission_requested: 'Your teacher asked you to submit again',
  voided: 'Your submission was voided',
} as const;

/** Whether the student can (re)open this exam: never submitted, or asked to submit again, and no attempt whose time ran out. */
const canStart = (exam: LearnerExam, left: number | null | undefined) =>
  left !== 0 && (exam.submission === null || exam.submission.status === 'resubmission_requested');

/** The open attempt's time left (null: no limit), 0 once it ran out, undefined without an unsubmitted attempt. */
const attemptTimeLeft = (exam: LearnerExam, clockOffsetMs: number, now: number) => (exam.attempt ? timeLeft(exam.attempt, clockOffsetMs, now) : undefined);

function describeState(exam: LearnerExam): string {
  if (!exam.submission) return 'Not submitted yet';
  const text = STATE_TEXT[exam.submission.status];
  if (exam.submission.status === 'graded' && exam.submission.score !== null) {
    return `${text}: ${exam.submission.score}${exam.max_score !== null ? ` / ${exam.max_score}` : ''}`;
  }
  return text;
}

const buttonText = (exam: LearnerExam) => (exam.attempt ? 'Resume exam' : exam.submission ? 'Submit again' : 'Open exam');

export function ExamList({ session, highlightExamId, resumeExamId, onStarted, onSessionEnded }: Props) {
  const [exams, setExams] = useState<LearnerExam[] | null>(null);
  const [clockOffsetMs, setClockOffsetMs] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState<string | null>(null);
  const resumed = useRef(false);

  useEffect(() => {
    let current = true;
    listMyExams(session).then(
      ({ data, clockOffsetMs: offset }) => {
        if (!current) return;
        setExams(data);
        setClockOffsetMs(offset);
      },
      (err: unknown) => {
        if (!current) return;
        if (err instanceof ApiError && err.status === 401) onSessionEnded();
        else setError(err instanceof Error ? err.message : 'Your exams could not be loaded.');
      },
    );
    return () => {
      current = false;
    };
  }, [session, onSessionEnded]);

  const ticking = exams?.some((exam) => exam.attempt?.expires_at) ?? false;
  useEffect(() => {
    if (!ticking) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [ticking]);

  // After a reload in the middle of an exam, go straight back to it while its time lasts.
  useEffect(() => {
    if (!exams || resumed.current) return;
    resumed.current = true;
    const open = exams.find((exam) => exam.id === resumeExamId);
    if (open && attemptTimeLeft(open, clockOffsetMs, Date.now()) !== 0 && open.attempt) void start(open);
    // Once, on the first list: going back to the list must not reopen the exam.
  }, [exams]);

  async function start(exam: LearnerExam) {
    setStarting(exam.id);
    setError(null);
    try {
      const { data, clockOffsetMs } = await startAttempt(session, exam.id);
      onStarted(exam, data, clockOffsetMs);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return onSessionEnded();
      setError(err instanceof Error ? err.message : 'The exam could not be started.');
      setStarting(null);
    }
  }

  const ordered = exams ? [...exams].sort((a, b) => Number(b.id === highlightExamId) - Number(a.id === highlightExamId)) : null;

  return (
    <section aria-labelledby="learner-exams-title">
      <h1 id="learner-exams-title">My exams</h1>
      {error && (
        <p role="alert" className="learner-error">
          {error}
        </p>
      )}
      {ordered === null && !error && <p role="status">Loading your exams…</p>}
      {ordered?.length === 0 && <p>No exams are assigned to you right now.</p>}
      {ordered && ordered.length > 0 && (
        <ul className="learner-exams">
          {ordered.map((exam) => {
            const left = attemptTimeLeft(exam, clockOffsetMs, now);
            return (
              <li key={exam.id} className={`learner-card${exam.id === highlightExamId ? ' learner-highlight' : ''}`}>
                <h2>{exam.title}</h2>
                {exam.id === highlightExamId && <p className="learner-note">Your school sent you to this exam.</p>}
                <dl className="learner-facts">
                  <dt>Type</dt>
                  <dd>{exam.exam_type}</dd>
                  <dt>Due</dt>
                  <dd>{exam.due_date ? new Date(exam.due_date).toLocaleString() : 'No due date'}</dd>
                  <dt>Time limit</dt>
                  <dd>{exam.time_limit_minutes ? `${exam.time_limit_minutes} minutes` : 'None'}</dd>
                  <dt>Status</dt>
                  <dd>{describeState(exam)}</dd>
                </dl>
                {exam.code_spec && <CodingFacts spec={exam.code_spec} />}
                {exam.description.trim() && (
                  <details className="learner-details">
                    <summary>Instructions</summary>
                    <Instructions markdown={exam.description} headingOffset={2} />
                  </details>
                )}
                {left === 0 && <p className="learner-note">The time for your attempt ran out before it was submitted.</p>}
                {canStart(exam, left) && (
                  <>
                    {exam.time_limit_minutes !== null && (
                      <p className="learner-note" id={`learner-timing-${exam.id}`}>
                        {typeof left === 'number' ? (
                          <>
                            Your attempt is open. Time left: <span className="learner-timer-inline">{formatDuration(left)}</span>; the clock keeps running while
                            you are away.
                          </>
                        ) : (
                          'The clock starts when you press the button and keeps running if you leave the page.'
                        )}
                      </p>
                    )}
                    <button
                      type="button"
                      onClick={() => void start(exam)}
                      disabled={starting !== null}
                      aria-label={`${buttonText(exam)}: ${exam.title}`}
                      aria-describedby={exam.time_limit_minutes !== null ? `learner-timing-${exam.id}` : undefined}
                    >
                      {starting === exam.id ? 'Opening…' : buttonText(exam)}
                    </button>
                  </>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
