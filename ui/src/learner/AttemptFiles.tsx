import { useEffect, useState } from 'react';
import { ApiError, uploadAttemptFile, type AttemptFile } from './api';
import { formatSize } from './Archives';

interface Props {
  session: string;
  attemptId: string;
  files: readonly AttemptFile[];
  onChange: (files: AttemptFile[]) => void;
  /** How many uploads are on their way: the page holds its submit until they are in. */
  onUploadsChange: (count: number) => void;
  disabled: boolean;
  onSessionEnded: () => void;
}

/** What the appliance takes per file (its `file_too_large` bound), checked here first so a large file is refused before it is sent. */
const MAX_BYTES = 50 * 1024 * 1024;

/**
 * Files handed in with the answer (`fizzbuzz.py`, a zip of a project): each one is uploaded when
 * chosen and goes with the submission by its ref. Choosing a file of the same name again replaces it.
 */
export function AttemptFiles({ session, attemptId, files, onChange, onUploadsChange, disabled, onSessionEnded }: Props) {
  const [uploading, setUploading] = useState<string[]>([]);
  useEffect(() => onUploadsChange(uploading.length), [uploading.length, onUploadsChange]);
  const [problem, setProblem] = useState<string | null>(null);

  async function add(chosen: File[]) {
    setProblem(null);
    const tooLarge = chosen.filter((file) => file.size > MAX_BYTES);
    if (tooLarge.length > 0) setProblem(`${tooLarge.map((file) => file.name).join(', ')}: larger than 50 MB, not sent.`);
    let kept = [...files];
    for (const file of chosen.filter((item) => item.size <= MAX_BYTES)) {
      setUploading((names) => [...names, file.name]);
      try {
        const stored = await uploadAttemptFile(session, attemptId, file);
        kept = [...kept.filter((item) => item.name !== stored.name), stored];
        onChange(kept);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return onSessionEnded();
        setProblem(`${file.name} was not sent: ${err instanceof Error ? err.message : 'the upload failed'}. Choose it again to retry.`);
      } finally {
        setUploading((names) => names.filter((name) => name !== file.name));
      }
    }
  }

  return (
    <fieldset className="learner-files" disabled={disabled}>
      <legend>Files to hand in</legend>
      <label htmlFor="learner-file-input" className="learner-file-label">
        Add files (up to 50 MB each)
      </label>
      <input
        id="learner-file-input"
        type="file"
        multiple
        onChange={(event) => {
          const chosen = Array.from(event.currentTarget.files ?? []);
          event.currentTarget.value = '';
          void add(chosen);
        }}
      />
      {files.length > 0 || uploading.length > 0 ? (
        <ul className="learner-file-list" aria-label="Files handed in with your answer">
          {files.map((file) => (
            <li key={file.ref}>
              <code>{file.name}</code>, {formatSize(file.size)}, sent{' '}
              <button
                type="button"
                className="learner-link-button"
                onClick={() => onChange(files.filter((item) => item.ref !== file.ref))}
                aria-label={`Remove ${file.name}`}
              >
                Remove
              </button>
            </li>
          ))}
          {uploading.map((name) => (
            <li key={`uploading-${name}`}>
              <code>{name}</code>, sending…
            </li>
          ))}
        </ul>
      ) : (
        <p className="learner-note">No file yet. Files are sent as you choose them and handed in when you submit.</p>
      )}
      <p role="status" className={problem ? 'learner-error' : 'learner-visually-hidden'}>
        {problem ?? (uploading.length > 0 ? `Sending ${uploading.join(', ')}…` : '')}
      </p>
    </fieldset>
  );
}
