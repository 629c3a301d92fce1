import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/errors';
import { getMyAlpha, recordPractice, type ActivityResult, type Badge, type ConceptMastery, type EnrolledCurriculum, type OwnAlpha } from './alpha-api';

interface Props {
  session: string;
  onSessionEnded: () => void;
}

const BADGE_NAMES: Record<Badge['code'], string> = {
  first_activity: 'First practice',
  streak_3: '3-day streak',
  streak_7: '7-day streak',
  mastery_0_8: 'Concept mastered',
};

const ENROLLMENT_NOTE: Record<EnrolledCurriculum['enrollment']['status'], string | null> = {
  active: null,
  paused: 'Paused by your school: you can practise again once it is resumed.',
  completed: 'Completed: your mastery stays here to look back on.',
};

const percent = (mastery: number) => `${Math.round(mastery * 100)}%`;
const days = (count: number) => `${count} ${count === 1 ? 'day' : 'days'}`;

interface Practising {
  curriculum: EnrolledCurriculum;
  concept: ConceptMastery;
}

/** Alpha Learning on the learner page: the student's curricula with mastery per concept, points, streak and badges, and a practice view. */
export function Practice({ session, onSessionEnded }: Props) {
  const [alpha, setAlpha] = useState<OwnAlpha | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [practising, setPractising] = useState<Practising | null>(null);

  const refused = useCallback(
    (err: unknown, fallback: string) => {
      if (err instanceof ApiError && err.status === 401) onSessionEnded();
      else setError(err instanceof Error ? err.message : fallback);
    },
    [onSessionEnded],
  );

  const load = useCallback(
    () =>
      getMyAlpha(session).then(
        (data) => setAlpha(data),
        (err: unknown) => refused(err, 'Your practice could not be loaded.'),
      ),
    [session, refused],
  );
  useEffect(() => void load(), [load]);

  if (practising) {
    return (
      <PracticeConcept
        session={session}
        practising={practising}
        onRecorded={() => void load()}
        onBack={() => setPractising(null)}
        onRefused={(err) => refused(err, 'Your answer could not be recorded.')}
      />
    );
  }
  return (
    <section aria-labelledby="learner-alpha-title" className="learner-alpha">
      <h2 id="learner-alpha-title">Practice</h2>
      {error && (
        <p role="alert" className="learner-error">
          {error}
        </p>
      )}
      {alpha === null && !error && <p>Loading your practice…</p>}
      {alpha && alpha.curricula.length === 0 && <p>You are not enrolled in any practice curriculum yet.</p>}
      {alpha && alpha.curricula.length > 0 && (
        <>
          <Progress alpha={alpha} />
          <ul className="learner-exams">
            {alpha.curricula.map((curriculum) => (
              <Curriculum key={curriculum.id} curriculum={curriculum} onPractise={(concept) => setPractising({ curriculum, concept })} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Progress({ alpha }: { alpha: OwnAlpha }) {
  return (
    <div className="learner-card learner-alpha-progress">
      <dl className="learner-facts">
        <dt>Points</dt>
        <dd>{alpha.points_total}</dd>
        <dt>Streak</dt>
        <dd>{days(alpha.streak_days)}</dd>
      </dl>
      <h3 id="learner-alpha-badges">Badges</h3>
      {alpha.badges.length === 0 ? (
        <p className="learner-note">No badges yet: your first practice earns one.</p>
      ) : (
        <ul className="learner-alpha-badges" aria-labelledby="learner-alpha-badges">
          {alpha.badges.map((badge) => (
            <li key={badge.code} className="learner-badge">
              {BADGE_NAMES[badge.code]}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function MasteryBar({ concept }: { concept: ConceptMastery }) {
  return (
    <div className="learner-mastery">
      <progress max={100} value={Math.round(concept.mastery * 100)} aria-label={`Mastery of ${concept.concept_name}`} />
      <span>{percent(concept.mastery)}</span>
    </div>
  );
}

function Curriculum({ curriculum, onPractise }: { curriculum: EnrolledCurriculum; onPractise: (concept: ConceptMastery) => void }) {
  const note = ENROLLMENT_NOTE[curriculum.enrollment.status];
  const titleId = `learner-curriculum-${curriculum.id}`;
  return (
    <li className="learner-card">
      <h3 id={titleId}>
        {curriculum.name}
        {curriculum.enrollment.status !== 'active' && (
          <span className="learner-badge">{curriculum.enrollment.status === 'paused' ? 'Paused' : 'Completed'}</span>
        )}
      </h3>
      {curriculum.description && <p>{curriculum.description}</p>}
      <p className="learner-note">
        {curriculum.concepts_mastered} of {curriculum.concepts_total} concepts mastered · daily target {curriculum.enrollment.daily_target_minutes} minutes
      </p>
      {note && <p className="learner-note">{note}</p>}
      <ul className="learner-concepts">
        {curriculum.concepts.map((concept) => (
          <li key={concept.concept_id}>
            <span className="learner-concept-name">{concept.concept_name}</span>
            <MasteryBar concept={concept} />
            {curriculum.enrollment.status === 'active' && (
              <button type="button" className="learner-secondary" onClick={() => onPractise(concept)} aria-label={`Practise ${concept.concept_name}`}>
                Practise
              </button>
            )}
          </li>
        ))}
      </ul>
    </li>
  );
}

interface PracticeConceptProps {
  session: string;
  practising: Practising;
  onRecorded: () => void;
  onBack: () => void;
  onRefused: (err: unknown) => void;
}

/**
 * One concept's practice. The appliance holds no exercises (a concept is a name), so the student
 * works one where they learn and records how it went: see docs/decisions/alpha-practice.md.
 */
function PracticeConcept({ session, practising, onRecorded, onBack, onRefused }: PracticeConceptProps) {
  const { curriculum } = practising;
  const [concept, setConcept] = useState(practising.concept);
  const [minutes, setMinutes] = useState('5');
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<{ before: number; outcome: ActivityResult; correct: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  async function record(correct: boolean, event?: FormEvent) {
    event?.preventDefault();
    const spent = Number(minutes);
    if (!Number.isInteger(spent) || spent < 0 || spent > 600) {
      setError('Minutes must be a whole number from 0 to 600.');
      return;
    }
    setSending(true);
    setError(null);
    try {
      const outcome = await recordPractice(session, { curriculum_id: curriculum.id, concept_id: concept.concept_id, correct, minutes: spent });
      setResult({ before: concept.mastery, outcome, correct });
      setConcept({ ...concept, ...outcome.mastery });
      onRecorded();
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setError(err.message);
      else onRefused(err);
    } finally {
      setSending(false);
    }
  }

  return (
    <section aria-labelledby="learner-practice-title" className="learner-card learner-practice">
      <h2 id="learner-practice-title" tabIndex={-1} ref={heading}>
        Practise: {concept.concept_name}
      </h2>
      <p>
        {curriculum.name} · {concept.attempts} {concept.attempts === 1 ? 'answer' : 'answers'} so far, {concept.correct} correct
      </p>
      <MasteryBar concept={concept} />
      <p className="learner-note">
        Work through one exercise on {concept.concept_name} (in your workbook, in class or in your learning app), then record how it went. Each correct answer
        earns points and moves your mastery up; a wrong one moves it down a little.
      </p>
      <form className="learner-practice-form" onSubmit={(event) => void record(true, event)}>
        <label htmlFor="learner-practice-minutes">Minutes spent</label>
        <input
          id="learner-practice-minutes"
          type="number"
          inputMode="numeric"
          min={0}
          max={600}
          step={1}
          value={minutes}
          onChange={(event) => setMinutes(event.target.value)}
          aria-describedby="learner-practice-minutes-hint"
        />
        <p id="learner-practice-minutes-hint" className="learner-note">
          They count toward your daily target of {curriculum.enrollment.daily_target_minutes} minutes.
        </p>
        <fieldset className="learner-actions">
          <legend>How did it go?</legend>
          <button type="submit" disabled={sending}>
            I got it right
          </button>
          <button type="button" className="learner-secondary" disabled={sending} onClick={() => void record(false)}>
            I got it wrong
          </button>
        </fieldset>
      </form>
      {error && (
        <p role="alert" className="learner-error">
          {error}
        </p>
      )}
      <div role="status" className="learner-practice-result">
        {result && <PracticeResult conceptName={concept.concept_name} {...result} />}
      </div>
      <button type="button" className="learner-link-button" onClick={onBack}>
        Back to my practice
      </button>
    </section>
  );
}

function PracticeResult({ conceptName, before, outcome, correct }: { conceptName: string; before: number; outcome: ActivityResult; correct: boolean }) {
  return (
    <>
      <p>
        <strong>{correct ? 'Recorded as right.' : 'Recorded as wrong.'}</strong> Mastery of {conceptName}: {percent(before)} →{' '}
        {percent(outcome.mastery.mastery)}.
      </p>
      <p>
        {outcome.points_awarded > 0 ? `+${outcome.points_awarded} points` : 'No points this time'} · total {outcome.total} points · streak{' '}
        {days(outcome.streak_days)}
      </p>
      {outcome.awards.length > 0 && (
        <ul className="learner-awards">
          {outcome.awards.map((award) => (
            <li key={award.note}>
              +{award.points}: {award.note}
            </li>
          ))}
        </ul>
      )}
      {outcome.new_badges.length > 0 && <p>New badge: {outcome.new_badges.map((code) => BADGE_NAMES[code]).join(', ')}!</p>}
    </>
  );
}
