import type { AttemptFile, LearnerSession } from './api';
import type { PlatformStorage } from './platform-storage';

const DEVICE_KEY = 'campusbridge.device_id';
const SESSION_KEY = 'campusbridge.learner_session';
const DRAFT_PREFIX = 'campusbridge.draft.';
const DRAFT_FILES_PREFIX = 'campusbridge.draft-files.';
const OPEN_EXAM_KEY = 'campusbridge.open_exam';

/** Storage can be switched off (private windows, policies): the page then works for this visit only. */
function read(storage: () => Storage, key: string): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null;
  }
}

function write(storage: () => Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage().removeItem(key);
    else storage().setItem(key, value);
  } catch {
    // Not kept; nothing else to do.
  }
}

const local = () => window.localStorage;
const perTab = () => window.sessionStorage;

let launchToken: string | null | undefined;

/**
 * The launch token of the address bar, read once and then removed from it (and from the
 * history), so it is neither bookmarked, shared, nor sent again by a reload.
 */
export function takeLaunchToken(): string | null {
  if (launchToken !== undefined) return launchToken;
  const url = new URL(window.location.href);
  launchToken = url.searchParams.get('token');
  if (launchToken !== null) {
    url.searchParams.delete('token');
    window.history.replaceState(null, '', `${url.pathname}${url.search}${url.hash}`);
  }
  return launchToken;
}

/** A random id for this browser, kept in localStorage: one device seat on the license, however often the student signs in. */
export function deviceId(): string {
  const known = read(local, DEVICE_KEY);
  if (known) return known;
  // getRandomValues works on plain-HTTP LAN addresses too, where randomUUID does not.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const id = `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  write(local, DEVICE_KEY, id);
  return id;
}

/**
 * Whether this page can keep a device id at all. Framed by an LMS with third-party storage blocked
 * it cannot: every launch would then count as a new device and use up the student's 3 seats.
 */
export function canKeepDeviceId(): boolean {
  return deviceId() === read(local, DEVICE_KEY);
}

/** "Chrome on Windows": enough for the school to recognise a device in its license's device list. */
export function deviceName(): string {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const system = /CrOS/.test(ua)
    ? 'ChromeOS'
    : /Android/.test(ua)
      ? 'Android'
      : /iPhone|iPad/.test(ua)
        ? 'iOS'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Mac OS X/.test(ua)
            ? 'macOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : 'unknown system';
  return `${browser} on ${system}`;
}

/** The session lives in this tab only (sessionStorage), until it expires or the student signs out. */
export function loadSession(): LearnerSession | null {
  const raw = read(perTab, SESSION_KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as LearnerSession;
    if (Date.parse(session.expires_at) > Date.now()) return session;
  } catch {
    // A damaged entry is dropped below.
  }
  write(perTab, SESSION_KEY, null);
  return null;
}

export function saveSession(session: LearnerSession | null): void {
  write(perTab, SESSION_KEY, session ? JSON.stringify(session) : null);
}

/** The answer being typed, kept per attempt so a reload does not lose it. */
export const loadDraft = (attemptId: string) => read(perTab, `${DRAFT_PREFIX}${attemptId}`) ?? '';
export const saveDraft = (attemptId: string, text: string | null) => write(perTab, `${DRAFT_PREFIX}${attemptId}`, text);

/** The files uploaded for an attempt and not submitted yet, so a reload still sends them. */
export function loadDraftFiles(attemptId: string): AttemptFile[] {
  try {
    const files = JSON.parse(read(perTab, `${DRAFT_FILES_PREFIX}${attemptId}`) ?? '[]') as unknown;
    return Array.isArray(files) ? files.filter((file): file is AttemptFile => typeof file?.ref === 'string' && typeof file?.name === 'string') : [];
  } catch {
    return [];
  }
}
export const saveDraftFiles = (attemptId: string, files: readonly AttemptFile[] | null) =>
  write(perTab, `${DRAFT_FILES_PREFIX}${attemptId}`, files && files.length > 0 ? JSON.stringify(files) : null);

/** The exam this tab is taking, so a reload goes back to it (its attempt and clock come from the server). */
export const loadOpenExam = () => read(perTab, OPEN_EXAM_KEY);
export const saveOpenExam = (examId: string | null) => write(perTab, OPEN_EXAM_KEY, examId);

/*
 * Inside an LMS frame the browser may give this page no storage at all (third-party storage
 * blocked): the platform then keeps the device id and the session for it, when it offers LTI
 * Platform Storage (platform-storage.ts). A failed or silent platform leaves the page as it was.
 */
const PLATFORM_DEVICE_KEY = 'campusbridge_device';
const PLATFORM_SESSION_KEY = 'campusbridge_session';
const DEVICE_ID = /^web-[0-9a-f]{32}$/;

/** The device id kept by the platform, else this browser's, handed to the platform: one seat per device, however often the LMS frames the page. */
export async function sharedDeviceId(storage: PlatformStorage): Promise<string> {
  const kept = await storage.get(PLATFORM_DEVICE_KEY);
  if (kept && DEVICE_ID.test(kept)) return kept;
  const id = deviceId();
  await storage.put(PLATFORM_DEVICE_KEY, id);
  return id;
}

/** The session the platform keeps for this page, when still valid: a reload inside the frame stays signed in. */
export async function restoreSession(storage: PlatformStorage): Promise<LearnerSession | null> {
  const raw = await storage.get(PLATFORM_SESSION_KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as LearnerSession;
    return typeof session.session_token === 'string' && Date.parse(session.expires_at) > Date.now() ? session : null;
  } catch {
    return null;
  }
}

/** Keeps the session in the tab and, where the platform offers it, with the platform (an empty value forgets it). */
export function keepSession(session: LearnerSession | null, storage: PlatformStorage | null): void {
  saveSession(session);
  if (storage) void storage.put(PLATFORM_SESSION_KEY, session ? JSON.stringify(session) : '');
}
