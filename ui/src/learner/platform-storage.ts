/**
 * LTI Platform Storage (1EdTech "Client Side postMessage Storage"): inside an LMS frame where the
 * browser gives this page no storage of its own (third-party cookies and storage blocked), the
 * platform keeps a few values for it, asked by `lti.put_data` / `lti.get_data` messages.
 *
 * The launch says whether the platform offers it (`lti_storage_target`, the frame to post to, and
 * `lti_storage_origin`, the origin of the platform's sign-in URL: the only origin messages are
 * sent to and answers accepted from). Outside a frame, or without those, there is none.
 */

/** How long an answer is waited for: a platform that stays silent must not hold the page. */
const ANSWER_TIMEOUT_MS = 2_000;

export interface PlatformStorage {
  put(key: string, value: string): Promise<boolean>;
  get(key: string): Promise<string | null>;
}

interface Answer {
  subject?: unknown;
  message_id?: unknown;
  value?: unknown;
  error?: unknown;
}

let counter = 0;
const messageId = () => `cb-${Date.now().toString(36)}-${(counter += 1)}`;

/** Where to post: `_parent` is the parent window; any other name a frame of the parent (the platform's forwarding frame). */
function targetWindow(name: string): Window | null {
  if (window.parent === window) return null;
  if (name === '_parent') return window.parent;
  try {
    return (window.parent.frames as unknown as Record<string, Window | undefined>)[name] ?? null;
  } catch {
    return null;
  }
}

function ask(target: Window, origin: string, message: Record<string, unknown>): Promise<Answer | null> {
  return new Promise((resolve) => {
    const id = messageId();
    const timer = window.setTimeout(() => finish(null), ANSWER_TIMEOUT_MS);
    function finish(answer: Answer | null) {
      window.clearTimeout(timer);
      window.removeEventListener('message', listen);
      resolve(answer);
    }
    function listen(event: MessageEvent) {
      if (event.origin !== origin) return;
      const data = event.data as Answer | null;
      if (!data || typeof data !== 'object' || data.message_id !== id || data.subject !== `${String(message.subject)}.response`) return;
      finish(data);
    }
    window.addEventListener('message', listen);
    try {
      target.postMessage({ ...message, message_id: id }, origin);
    } catch {
      finish(null);
    }
  });
}

/** The platform's storage for this launch, or null when the launch did not offer one (or the page is not framed). */
export function platformStorageFrom(search: string): PlatformStorage | null {
  const params = new URLSearchParams(search);
  const name = params.get('lti_storage_target');
  const origin = params.get('lti_storage_origin');
  if (!name || !origin) return null;
  const target = targetWindow(name);
  if (!target) return null;
  return {
    async put(key, value) {
      const answer = await ask(target, origin, { subject: 'lti.put_data', key, value });
      return answer !== null && answer.error === undefined;
    },
    async get(key) {
      const answer = await ask(target, origin, { subject: 'lti.get_data', key });
      return answer && answer.error === undefined && typeof answer.value === 'string' ? answer.value : null;
    },
  };
}

let current: PlatformStorage | null | undefined;

/** This page's platform storage, read from the address once (the launch token's removal keeps the other parameters). */
export function platformStorage(): PlatformStorage | null {
  if (current === undefined) current = platformStorageFrom(window.location.search);
  return current;
}
