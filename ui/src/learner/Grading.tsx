import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { ApiError, getGrading, getGradingSubmission, gradeFromLms, type GradingPage, type GradingSubmission } from './api';

interface Props {
  session: string;
  onSessionEnded: () => void;
}

const STATUS_WORDS = {
  submitted: 'To grade',
  graded: 'Graded',
  resubmission_requested: 'Resubmission asked',
  voided: 'Voided',
} as const;

const when = (iso: string) => new Date(iso).toLocaleString();

/** The answers as the student's app sent them: the text when there is one, else the JSON. */
function answerText(answers: unknown): string {
  if (answers && typeof answers === 'object' && typeof (answers as { text?: unknown }).text === 'string') return (answers as { text: string }).text;
  return answers === null || answers === undefined ? '' : JSON.stringify(answers, null, 2);
}

/**
 * An LMS instructor's view (docs/lms.md#grading-from-the-lms): the one exam the launch opened, its
 * submissions, and a grade with a comment for each. Nothing else of the school is reachable.
 */
export function Grading({ session, onSessionEnded }: Props) {
  const [page, setPage] = useState(1);
  const [overview, setOverview] = useState<GradingPage | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refused = useCallback(
    (err: unknown, fallback: string) => {
      if (err instanceof ApiError && err.status === 401) onSessionEnded();
      else setError(err instanceof Error ? err.message : fallback);
    },
    [onSessionEnded],
  );

  const load = useCallback(() => {
    getGrading(session, page).then(setOverview, (err: unknown) => refused(err, 'The submissions could not be loaded.'));
  }, [session, page, refused]);
  useEffect(load, [load]);

  if (!overview) {
    return error ? (
      <p className="learner-error" role="alert">
        {error}
      </p>
    ) : (
      <p role="status" className="learner-status">
        Loading the submissions…
      </p>
    );
  }
  const { exam } = overview;
  return (
    <>
      <section className="learner-card" aria-labelledby="grading-title">
        <h1 id="grading-title">Grading: {exam.title}</h1>
        <p className="learner-note">
          Opened from your course in the LMS. You can read this exam’s submissions and grade them here; grades go back to the LMS’s gradebook.
        </p>
        {error && (
          <p className="learner-error" role="alert">
            {error}
          </p>
        )}
        {overview.items.length === 0 ? (
          <p>No one has submitted this exam yet.</p>
        ) : (
          <table className="learner-table">
            <caption className="learner-visually-hidden">Submissions of {exam.title}</caption>
            <thead>
              <tr>
                <th scope="col">Student</th>
                <th scope="col">Submitted</th>
                <th scope="col">Status</th>
                <th scope="col">Score</th>
                <th scope="col">
                  <span className="learner-visually-hidden">Open</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {overview.items.map((row) => (
                <tr key={row.id} aria-current={row.id === openId ? 'true' : undefined}>
                  <td>{row.student?.full_name ?? 'A former student'}</td>
                  <td>{when(row.submitted_at)}</td>
                  <td>{STATUS_WORDS[row.status]}</td>
                  <td>{row.score === null ? '–' : exam.max_score === null ? row.score : `${row.score} / ${exam.max_score}`}</td>
                  <td>
                    <button type="button" className="learner-secondary" onClick={() => setOpenId(row.id)}>
                      Open<span className="learner-visually-hidden"> the submission of {row.student?.full_name ?? 'a former student'}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {overview.totalPages > 1 && (
          <div className="learner-actions">
            <button type="button" className="learner-secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Previous page
            </button>
            <span>
              Page {overview.page} of {overview.totalPages}
            </span>
            <button type="button" className="learner-secondary" disabled={page >= overview.totalPages} onClick={() => setPage(page + 1)}>
              Next page
            </button>
          </div>
        )}
      </section>
      {openId && <SubmissionGrader key={openId} session={session} submissionId={openId} maxScore={exam.max_score} onGraded={load} onRefused={refused} />}
    </>
  );
}

interface GraderProps {
  session: string;
  submissionId: string;
  maxScore: number | null;
  onGraded: () => void;
  onRefused: (err: unknown, fallback: string) => void;
}

function SubmissionGrader({ session, submissionId, maxScore, onGraded, onRefused }: GraderProps) {
  const [submission, setSubmission] = useState<GradingSubmission | null>(null);
  const [score, setScore] = useState('');
  const [feedback, setFeedback] = useState('');
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    getGradingSubmission(session, submissionId).then(
      (found) => {
        if (!current) return;
        setSubmission(found);
        setScore(found.score === null ? '' : String(found.score));
        setFeedback(found.feedback ?? '');
      },
      (err: unknown) => current && onRefused(err, 'The submission could not be loaded.'),
    );
    return () => {
      current = false;
    };
  }, [session, submissionId, onRefused]);

  async function send(value: number) {
    setSaving(true);
    setSaved(null);
    setProblem(null);
    try {
      const graded = await gradeFromLms(session, submissionId, { score: value, ...(feedback.trim() ? { feedback } : {}) });
      setSubmission((previous) => (previous ? { ...previous, ...graded } : previous));
      setSaved(
        graded.status === 'resubmission_requested'
          ? 'Saved: the student is asked to submit again.'
          : `Saved: ${graded.score}${maxScore === null ? '' : ` out of ${maxScore}`}.`,
      );
      onGraded();
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setProblem(err.message);
      else onRefused(err, 'The grade could not be saved.');
    } finally {
      setSaving(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const value = Number(score);
    if (score.trim() === '' || !Number.isFinite(value)) {
      setProblem('Enter a score as a number.');
      return;
    }
    void send(value);
  }

  if (!submission) {
    return (
      <p role="status" className="learner-status">
        Loading the submission…
      </p>
    );
  }
  const text = answerText(submission.answers);
  return (
    <section className="learner-card" aria-labelledby="grader-title">
      <h2 id="grader-title">{submission.student?.full_name ?? 'A former student'}</h2>
      <dl className="learner-facts">
        <dt>Submitted</dt>
        <dd>{when(submission.submitted_at)}</dd>
        <dt>Status</dt>
        <dd>{STATUS_WORDS[submission.status]}</dd>
        {submission.graded_by && (
          <>
            <dt>Graded by</dt>
            <dd>{submission.graded_by}</dd>
          </>
        )}
      </dl>
      <h3>Answer</h3>
      {text ? <pre className="learner-command">{text}</pre> : <p className="learner-note">No written answer.</p>}
      {submission.attachments.length > 0 && (
        <>
          <h3>Files</h3>
          <ul>
            {submission.attachments.map((file) => (
              <li key={file.ref}>
                <a href={file.url} target="_blank" rel="noreferrer">
                  {file.name}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
      {submission.status === 'voided' ? (
        <p className="learner-note">This submission was voided by the school and cannot be graded.</p>
      ) : (
        <form className="learner-practice" onSubmit={submit} aria-label="Grade this submission">
          <label htmlFor="grade-score">Score{maxScore === null ? '' : ` (0 to ${maxScore})`}</label>
          <input
            id="grade-score"
            type="number"
            min={0}
            max={maxScore ?? undefined}
            step="any"
            value={score}
            onChange={(event) => setScore(event.target.value)}
            aria-describedby={problem ? 'grade-problem' : undefined}
          />
          <label htmlFor="grade-feedback" style={{ marginTop: '0.75rem' }}>
            Comment for the student
          </label>
          <textarea id="grade-feedback" rows={4} maxLength={10_000} value={feedback} onChange={(event) => setFeedback(event.target.value)} />
          {problem && (
            <p id="grade-problem" className="learner-error" role="alert">
              {problem}
            </p>
          )}
          {saved && (
            <p role="status" className="learner-practice-result">
              {saved}
            </p>
          )}
          <div className="learner-actions">
            <button type="submit" disabled={saving}>
              Save grade
            </button>
            <button type="button" className="learner-secondary" disabled={saving} onClick={() => void send(-1)}>
              Ask for a resubmission
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
