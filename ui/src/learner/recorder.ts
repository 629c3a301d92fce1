import {
  ApiError,
  finishRecording,
  listRecordings,
  recordRecorderError,
  sendRecordingChunk,
  startRecording,
  type Recording,
  type RecordingSource,
} from './api';

/** MediaRecorder hands over a chunk this often; each is one upload. */
export const CHUNK_MS = 5_000;
/** Chunks waiting to be sent may hold this much; past it the recorder stops rather than fill the memory. */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;
/** Keeps a 3-hour exam's recording under the appliance's 1 GiB per recording (docs/decisions/proctoring-recordings.md). */
const VIDEO_BITS_PER_SECOND = 600_000;
/** A chunk that keeps failing for network reasons is tried this many times (about 4 minutes in all). */
const MAX_TRIES = 10;

export type RecorderState =
  | { kind: 'idle' }
  | { kind: 'asking' }
  | { kind: 'recording'; uploaded: number; pending: number }
  | { kind: 'finishing'; uploaded: number; pending: number }
  | { kind: 'finished'; uploaded: number }
  | { kind: 'refused'; message: string }
  | { kind: 'failed'; message: string };

interface Options {
  session: string;
  attemptId: string;
  source: RecordingSource;
  onState: (state: RecorderState) => void;
  onSessionEnded: () => void;
}

const SOURCE_WORD: Record<RecordingSource, string> = { camera: 'camera', screen: 'screen sharing' };

/** The first container MediaRecorder offers among the ones every Chromium and Firefox play back. */
function pickMimeType(): string | undefined {
  return ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((type) => MediaRecorder.isTypeSupported(type));
}

/** Asks for the stream. Call it inside the click that starts recording: screen capture needs that gesture. */
export function requestStream(source: RecordingSource): Promise<MediaStream> {
  const devices = navigator.mediaDevices as MediaDevices | undefined;
  if (!devices) return Promise.reject(new DOMException('This page cannot reach the camera or the screen here.', 'NotSupportedError'));
  return source === 'camera' ? devices.getUserMedia({ video: true, audio: false }) : devices.getDisplayMedia({ video: true, audio: false });
}

const wait = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));

/**
 * One source (camera or screen) recorded with MediaRecorder and sent to the attempt chunk by chunk,
 * in order, each chunk retried under the same `seq` until the server has it. Every way it can
 * stop short (permission refused, sharing ended, recorder error, uploads falling behind) is told to
 * the student and recorded on the attempt as a `recorder_error`.
 */
export class ChunkedRecorder {
  private recorder: MediaRecorder | null = null;
  private stream: MediaStream | null = null;
  private recording: Recording | null = null;
  private readonly queue: Array<{ seq: number; blob: Blob }> = [];
  private nextSeq = 0;
  private pendingBytes = 0;
  private uploaded = 0;
  private pumping: Promise<void> | null = null;
  private stopping = false;
  private stopped: Promise<void> | null = null;
  private ended = false;

  constructor(private readonly options: Options) {}

  async start(streamRequest: Promise<MediaStream>): Promise<void> {
    this.options.onState({ kind: 'asking' });
    try {
      this.stream = await streamRequest;
    } catch (error) {
      const name = error instanceof DOMException ? error.name : 'Error';
      const refused = name === 'NotAllowedError' || name === 'SecurityError';
      const message = refused
        ? `You did not allow ${SOURCE_WORD[this.options.source]}. Your teacher is told; you can try again.`
        : `The ${SOURCE_WORD[this.options.source]} could not start (${name}). Your teacher is told; you can try again.`;
      await this.report(refused ? 'permission_refused' : 'unavailable', error instanceof Error ? error.message : name);
      this.ended = true;
      this.options.onState({ kind: refused ? 'refused' : 'failed', message });
      return;
    }
    try {
      const mimeType = pickMimeType();
      const recorder = new MediaRecorder(this.stream, { videoBitsPerSecond: VIDEO_BITS_PER_SECOND, ...(mimeType ? { mimeType } : {}) });
      this.recording = await startRecording(this.options.session, this.options.attemptId, this.options.source, mimeType ?? 'video/webm');
      recorder.ondataavailable = (event) => {
        if (event.data.size > 0) this.enqueue(event.data);
      };
      recorder.onerror = () => void this.fail('recorder_failed', 'The browser’s recorder stopped with an error.');
      for (const track of this.stream.getTracks()) {
        track.addEventListener('ended', () => {
          if (!this.stopping) void this.fail('track_ended', `The ${SOURCE_WORD[this.options.source]} stopped.`);
        });
      }
      this.recorder = recorder;
      recorder.start(CHUNK_MS);
      this.emit();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return this.options.onSessionEnded();
      await this.fail('start_failed', error instanceof Error ? error.message : 'The recording could not start.');
    }
  }

  /** Stops recording, sends what is left and finishes the recording. Safe to call more than once. */
  stop(): Promise<void> {
    this.stopped ??= this.stopAndFinish();
    return this.stopped;
  }

  private async stopAndFinish(): Promise<void> {
    this.stopping = true;
    const recorder = this.recorder;
    if (recorder && recorder.state !== 'inactive') {
      // The last `dataavailable` fires before `stop`.
      await new Promise<void>((resolve) => {
        recorder.addEventListener('stop', () => resolve(), { once: true });
        recorder.stop();
      });
    }
    this.releaseStream();
    if (!this.recording || this.ended) return;
    this.options.onState({ kind: 'finishing', uploaded: this.uploaded, pending: this.queue.length });
    await this.pump();
    try {
      this.recording = await finishRecording(this.options.session, this.options.attemptId, this.recording.id);
      this.options.onState({ kind: 'finished', uploaded: this.uploaded });
    } catch {
      // The appliance finishes a recording left open once the attempt is submitted.
      this.options.onState({ kind: 'finished', uploaded: this.uploaded });
    }
  }

  private enqueue(blob: Blob) {
    if (this.ended) return;
    this.queue.push({ seq: this.nextSeq++, blob });
    this.pendingBytes += blob.size;
    if (this.pendingBytes > MAX_PENDING_BYTES) {
      void this.fail('upload_backlog', 'The recording could not be sent fast enough and was stopped.');
      return;
    }
    this.emit();
    void this.pump();
  }

  /** Sends the queue in order; one pump runs at a time, and awaiting it waits for the queue to empty. */
  private pump(): Promise<void> {
    this.pumping ??= (async () => {
      try {
        while (this.queue.length > 0 && !this.ended) {
          const chunk = this.queue[0]!;
          await this.send(chunk.seq, chunk.blob);
          this.queue.shift();
          this.pendingBytes -= chunk.blob.size;
          this.uploaded += 1;
          this.emit();
        }
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) this.options.onSessionEnded();
        else await this.fail('upload_failed', error instanceof Error ? error.message : 'The recording could not be sent.');
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  private async send(seq: number, blob: Blob): Promise<void> {
    const recordingId = this.recording!.id;
    for (let tries = 1; ; tries += 1) {
      try {
        this.recording = await sendRecordingChunk(this.options.session, this.options.attemptId, recordingId, seq, blob);
        return;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) throw error;
        if (error instanceof ApiError && error.status === 409) {
          // Maybe the server stored this chunk and its answer was lost: ask where it stands.
          const current = (await listRecordings(this.options.session, this.options.attemptId)).find((item) => item.id === recordingId);
          if (current && current.next_seq > seq) return;
          throw error;
        }
        if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429) throw error;
        if (tries >= MAX_TRIES) throw error;
        await wait(Math.min(30_000, 1_000 * 2 ** (tries - 1)));
      }
    }
  }

  private async fail(reason: string, message: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.recorder && this.recorder.state !== 'inactive') this.recorder.stop();
    this.releaseStream();
    this.options.onState({ kind: 'failed', message: `${message} Your teacher is told.` });
    await this.report(reason, message);
    if (this.recording) await finishRecording(this.options.session, this.options.attemptId, this.recording.id).catch(() => undefined);
  }

  private async report(reason: string, message: string): Promise<void> {
    try {
      await recordRecorderError(this.options.session, this.options.attemptId, { source: this.options.source, reason, message: message.slice(0, 300) });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.options.onSessionEnded();
    }
  }

  private releaseStream() {
    for (const track of this.stream?.getTracks() ?? []) track.stop();
  }

  private emit() {
    if (this.ended || this.stopping) return;
    this.options.onState({ kind: 'recording', uploaded: this.uploaded, pending: this.queue.length });
  }
}
