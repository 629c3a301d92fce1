import { useEffect, useState } from 'react';
import { ApiError, listMyExams, startAttempt, type Attempt, type LearnerExam } from './api';

interface Props {
  session: string;
  /** The exam the school's link pointed to (`redirect` `exam:<id>`), shown first. */
  highlightExamId: string | null;
  onStarted: (exam: LearnerExam, attempt: Attempt, clockOffsetMs: number) => void;
  onSessionEnded: () => void;
}

const STATE_TEXT = {
  submitted: 'Submitted, waiting for a grade',
  graded: 'Graded',
  resubmission_requested: 'Your teacher asked you to submit again',
  voided: 'Your submission was voided',
} as const;

/** Whether the student can (re)open this exam: never submitted, or asked to submit again. */
const canStart = (exam: LearnerExam) => exam.submission === null || exam.submission.status === 'resubmission_requested';

function describeState(exam: LearnerExam): string {
  if (!exam.submission) return 'Not submitted yet';
  const text = STATE_TEXT[exam.submission.status];
  if (exam.submission.status === 'graded' && exam.submission.score !== null) {
    return `${text}: ${exam.submission.score}${exam.max_score !== null ? ` / ${exam.max_score}` : ''}`;
  }
  return text;
}

export function ExamList({ session, highlightExamId, onStarted, onSessionEnded }: Props) {
  const [exams, setExams] = useState<LearnerExam[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    listMyExams(session).then(
      (items) => {
        if (current) setExams(items);
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
          {ordered.map((exam) => (
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
              {canStart(exam) && (
                <>
                  {exam.time_limit_minutes !== null && (
                    <p className="learner-note" id={`learner-timing-${exam.id}`}>
                      The clock starts when you press the button and keeps running if you leave the page.
                    </p>
                  )}
                  <button
                    type="button"
                    onClick={() => void start(exam)}
                    disabled={starting !== null}
                    aria-label={`${exam.submission ? 'Submit again' : 'Open exam'}: ${exam.title}`}
                    aria-describedby={exam.time_limit_minutes !== null ? `learner-timing-${exam.id}` : undefined}
                  >
                    {starting === exam.id ? 'Opening…' : exam.submission ? 'Submit again' : 'Open exam'}
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
