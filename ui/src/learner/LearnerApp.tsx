import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, exchangeLaunchToken, type Attempt, type LearnerExam, type LearnerSession, type SubmissionReceipt } from './api';
import { AttemptView } from './AttemptView';
import { Devices } from './Devices';
import { ExamList } from './ExamList';
import { Practice } from './Practice';
import { Grading } from './Grading';
import { platformStorage, type PlatformStorage } from './platform-storage';
import {
  canKeepDeviceId,
  deviceId,
  deviceName,
  keepSession,
  loadOpenExam,
  loadSession,
  restoreSession,
  saveOpenExam,
  sharedDeviceId,
  takeLaunchToken,
} from './storage';
import './learner.css';

type Phase =
  | { kind: 'exchanging' }
  | { kind: 'restoring' }
  | { kind: 'failed'; title: string; detail: string }
  | { kind: 'signed-out'; why: SignedOutWhy }
  | { kind: 'ready'; session: LearnerSession };

function initialPhase(): Phase {
  // A new launch link wins over a session already open in this tab (it may be another person's).
  if (takeLaunchToken()) return { kind: 'exchanging' };
  const session = loadSession();
  if (session) return { kind: 'ready', session };
  // Framed by an LMS that keeps the page's session (LTI Platform Storage): ask it before saying "signed out".
  return platformStorage() ? { kind: 'restoring' } : { kind: 'signed-out', why: 'no-link' };
}

/** What a refused exchange means for the person holding the link. */
function exchangeFailure(error: unknown): Phase {
  const code = error instanceof ApiError ? error.code : 'internal_error';
  switch (code) {
    case 'LAUNCH_TOKEN_INVALID':
      return {
        kind: 'failed',
        title: 'This link has expired or was already used',
        detail: 'Sign-in links work once and only for a few minutes. Ask your school for a new link: open the exam again from your school’s website.',
      };
    case 'user_inactive':
      return {
        kind: 'failed',
        title: 'Your account is not active',
        detail: 'Your account is suspended or your license has ended. Please contact your school.',
      };
    case 'conflict':
      return {
        kind: 'failed',
        title: 'Too many devices',
        detail: 'Your account is already used on 3 devices. Ask your school to free one of them, then ask for a new link.',
      };
    case 'network_error':
      return { kind: 'failed', title: 'The school’s server could not be reached', detail: 'Check your connection, then ask your school for a new link.' };
    default:
      return { kind: 'failed', title: 'Sign-in did not work', detail: 'Something went wrong. Ask your school for a new link.' };
  }
}

/**
 * The device this sign-in takes a seat for: the one the platform keeps when it offers storage, else
 * this browser's. A page framed by an LMS that can keep no id at all takes no seat (the LMS's own
 * sign-in stands for the device): a new id at every launch would use up the student's seats.
 */
async function launchDevice(storage: PlatformStorage | null): Promise<{ id: string; name: string } | undefined> {
  if (storage) return { id: await sharedDeviceId(storage), name: deviceName() };
  if (window.parent !== window && !canKeepDeviceId()) return undefined;
  return { id: deviceId(), name: deviceName() };
}

type SignedOutWhy = 'no-link' | 'ended' | 'left' | 'released';

const SIGNED_OUT_TEXT: Record<SignedOutWhy, { title: string; detail: string }> = {
  'no-link': { title: 'Open this page from your school', detail: 'This page opens from the link your school’s website gives you. Ask your school for a link.' },
  ended: {
    title: 'Your session has ended',
    detail: 'For your security you were signed out. Open the exam again from your school’s website to get a new link.',
  },
  left: { title: 'You are signed out', detail: 'To come back, open the link from your school’s website again.' },
  released: {
    title: 'This device was released',
    detail: 'It no longer holds a seat on your account, and you are signed out here. Opening a link from your school here takes a seat again.',
  },
};

/** The learner page at /launch: exchanges the launch token, then lists the student's exams and runs one. */
export function LearnerApp() {
  const [phase, setPhase] = useState<Phase>(initialPhase);
  const exchangeStarted = useRef(false);

  useEffect(() => {
    if (phase.kind !== 'exchanging' || exchangeStarted.current) return;
    exchangeStarted.current = true;
    const token = takeLaunchToken();
    if (!token) return;
    const storage = platformStorage();
    launchDevice(storage)
      .then((device) => exchangeLaunchToken(token, device))
      .then(
        (session) => {
          keepSession(session, storage);
          setPhase({ kind: 'ready', session });
        },
        (error: unknown) => {
          keepSession(null, storage);
          setPhase(exchangeFailure(error));
        },
      );
  }, [phase.kind]);

  useEffect(() => {
    const storage = platformStorage();
    if (phase.kind !== 'restoring' || !storage) return;
    let current = true;
    void restoreSession(storage).then((session) => {
      if (current) setPhase(session ? { kind: 'ready', session } : { kind: 'signed-out', why: 'no-link' });
    });
    return () => {
      current = false;
    };
  }, [phase.kind]);

  const signOut = useCallback((why: Exclude<SignedOutWhy, 'no-link'>) => {
    keepSession(null, platformStorage());
    saveOpenExam(null);
    setPhase({ kind: 'signed-out', why });
  }, []);
  // Stable, so the views' effects that depend on it do not run again on every render.
  const sessionEnded = useCallback(() => signOut('ended'), [signOut]);
  const deviceReleased = useCallback(() => signOut('released'), [signOut]);

  return (
    <main className="learner">
      <header className="learner-header">
        <p className="learner-brand">CampusBridge</p>
        {phase.kind === 'ready' && (
          <div className="learner-user">
            <span>
              Signed in as <strong>{phase.session.user.full_name}</strong> ({phase.session.user.login_email})
            </span>
            <button type="button" className="learner-link-button" onClick={() => signOut('left')}>
              Sign out
            </button>
          </div>
        )}
      </header>
      {(phase.kind === 'exchanging' || phase.kind === 'restoring') && (
        <p role="status" className="learner-status">
          Signing you in…
        </p>
      )}
      {phase.kind === 'failed' && <Notice title={phase.title} detail={phase.detail} alert />}
      {phase.kind === 'signed-out' && <Notice {...SIGNED_OUT_TEXT[phase.why]} />}
      {phase.kind === 'ready' &&
        (phase.session.grading_exam_id ? (
          <Grading session={phase.session.session_token} onSessionEnded={sessionEnded} />
        ) : (
          <Home session={phase.session} onSessionEnded={sessionEnded} onDeviceReleased={deviceReleased} />
        ))}
    </main>
  );
}

function Notice({ title, detail, alert = false }: { title: string; detail: string; alert?: boolean }) {
  return (
    <section className="learner-card" role={alert ? 'alert' : undefined} aria-labelledby="learner-notice-title">
      <h1 id="learner-notice-title">{title}</h1>
      <p>{detail}</p>
    </section>
  );
}

type View =
  | { kind: 'list' }
  | { kind: 'attempt'; exam: LearnerExam; attempt: Attempt; clockOffsetMs: number }
  | { kind: 'submitted'; exam: LearnerExam; receipt: SubmissionReceipt };

interface HomeProps {
  session: LearnerSession;
  onSessionEnded: () => void;
  onDeviceReleased: () => void;
}

function Home({ session, onSessionEnded, onDeviceReleased }: HomeProps) {
  const [view, setView] = useState<View>({ kind: 'list' });
  // Read before the effect below forgets it: the exam this tab was taking before a reload.
  const [resumeExamId, setResumeExamId] = useState(loadOpenExam);
  // Remembered per tab, so a reload during an attempt goes back to it.
  useEffect(() => saveOpenExam(view.kind === 'attempt' ? view.exam.id : null), [view]);
  const redirectExamId = session.redirect?.startsWith('exam:') ? session.redirect.slice('exam:'.length) : null;

  if (view.kind === 'attempt') {
    return (
      <AttemptView
        session={session.session_token}
        exam={view.exam}
        attempt={view.attempt}
        clockOffsetMs={view.clockOffsetMs}
        onSubmitted={(receipt) => setView({ kind: 'submitted', exam: view.exam, receipt })}
        onBack={() => setView({ kind: 'list' })}
        onSessionEnded={onSessionEnded}
      />
    );
  }
  if (view.kind === 'submitted') {
    return (
      <section className="learner-card" aria-labelledby="learner-submitted-title">
        <h1 id="learner-submitted-title">Submitted</h1>
        <p role="status">
          Your answer to <strong>{view.exam.title}</strong> was received at {new Date(view.receipt.submitted_at).toLocaleString()}.
        </p>
        <button type="button" onClick={() => setView({ kind: 'list' })}>
          Back to my exams
        </button>
      </section>
    );
  }
  const devices = <Devices session={session.session_token} onSessionEnded={onSessionEnded} onReleasedThisDevice={onDeviceReleased} />;
  if (session.user.role !== 'student') {
    return (
      <>
        <Notice title="Nothing to take here" detail="This page is where students take their exams. Faculty accounts have no exams to take." />
        {devices}
      </>
    );
  }
  return (
    <>
      <ExamList
        session={session.session_token}
        highlightExamId={redirectExamId}
        resumeExamId={resumeExamId}
        onStarted={(exam, attempt, clockOffsetMs) => {
          setResumeExamId(null);
          setView({ kind: 'attempt', exam, attempt, clockOffsetMs });
        }}
        onSessionEnded={onSessionEnded}
      />
      <Practice session={session.session_token} onSessionEnded={onSessionEnded} />
      {devices}
    </>
  );
}
