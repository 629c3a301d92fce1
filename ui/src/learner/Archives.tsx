import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { useState } from 'react';
import { ApiError, getMyExam, type ExamArchive } from './api';

const KIND_LABEL: Record<ExamArchive['kind'], string> = {
  starter: 'Starter files',
  sample_tests: 'Sample tests',
  hidden_tests: 'Hidden tests (encrypted)',
};

type Check = { state: 'idle' } | { state: 'working' } | { state: 'verified' } | { state: 'mismatch'; got: string } | { state: 'failed'; message: string };

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The link's path on this page's own origin: the appliance may be reached under another name than
 * its public address, and the page's CSP lets it fetch only from where it was served.
 */
const sameOriginPath = (url: string) => {
  const parsed = new URL(url, window.location.href);
  return `${parsed.pathname}${parsed.search}`;
};

/** Hands verified bytes to the browser as a download under the archive's own name. */
function saveAs(bytes: ArrayBuffer, name: string) {
  const href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const anchor = document.createElement('a');
  anchor.href = href;
  anchor.download = name;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  window.setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

interface Props {
  session: string;
  examId: string;
  files: ExamArchive[];
  onSessionEnded: () => void;
}

/**
 * A coding exam's archives during an attempt. Each download takes a fresh link (they live 15
 * minutes), checks the bytes' SHA-256 against the exam's, and is saved only when they match.
 * The hash is computed in JavaScript: Web Crypto exists only on secure origins, and a school
 * reaches the appliance over plain http on its campus network.
 */
export function Archives({ session, examId, files, onSessionEnded }: Props) {
  const [checks, setChecks] = useState<Record<string, Check>>({});
  const setCheck = (ref: string, check: Check) => setChecks((all) => ({ ...all, [ref]: check }));

  async function download(file: ExamArchive) {
    setCheck(file.ref, { state: 'working' });
    try {
      const fresh = (await getMyExam(session, examId)).files.find((item) => item.ref === file.ref) ?? file;
      const res = await fetch(sameOriginPath(fresh.url), { cache: 'no-store', credentials: 'omit' });
      if (!res.ok) {
        setCheck(file.ref, { state: 'failed', message: 'The file could not be downloaded: the attempt may have ended. Reload the page.' });
        return;
      }
      const bytes = await res.arrayBuffer();
      const got = bytesToHex(sha256(new Uint8Array(bytes)));
      if (got !== fresh.sha256.toLowerCase()) {
        setCheck(file.ref, { state: 'mismatch', got });
        return;
      }
      setCheck(file.ref, { state: 'verified' });
      saveAs(bytes, fresh.name);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return onSessionEnded();
      setCheck(file.ref, { state: 'failed', message: error instanceof Error ? error.message : 'The file could not be downloaded.' });
    }
  }

  if (files.length === 0) return null;
  return (
    <section className="learner-card" aria-labelledby="learner-archives-title">
      <h2 id="learner-archives-title">Files for this exam</h2>
      <p className="learner-note">Each download is checked against its SHA-256 checksum before it is saved.</p>
      <ul className="learner-archives">
        {files.map((file) => {
          const check = checks[file.ref] ?? { state: 'idle' };
          return (
            <li key={file.ref} className="learner-archive">
              <div className="learner-archive-head">
                <strong>{KIND_LABEL[file.kind]}</strong>
                <span>
                  <code>{file.name}</code>, {formatSize(file.size)}
                </span>
              </div>
              <p className="learner-checksum">
                SHA-256: <code data-testid="archive-sha256">{file.sha256}</code>
              </p>
              <button type="button" onClick={() => void download(file)} disabled={check.state === 'working'} aria-label={`Download ${file.name}`}>
                {check.state === 'working' ? 'Downloading…' : 'Download'}
              </button>
              <p role="status" className={check.state === 'mismatch' || check.state === 'failed' ? 'learner-error' : 'learner-note'}>
                {check.state === 'verified' && 'Checksum verified: the file is exactly the one your teacher provided.'}
                {check.state === 'mismatch' && `Checksum does not match (got ${check.got}). The file was not saved; try again or tell your teacher.`}
                {check.state === 'failed' && check.message}
              </p>
            </li>
          );
        })}
      </ul>
      {files.some((file) => file.kind === 'hidden_tests') && (
        <p className="learner-note">The hidden tests stay encrypted; the coding app unlocks them with the key your attempt receives.</p>
      )}
    </section>
  );
}
