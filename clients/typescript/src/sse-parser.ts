/** One dispatched Server-Sent Events message: the fields the streams use. */
export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * A frame with an id and no data: EventSource dispatches nothing for it but records the id, which
 * is how a live-only stream of the service names where it starts.
 */
export interface SsePosition {
  position: string;
}

export type SseFrame = SseMessage | SsePosition;

export const isPosition = (frame: SseFrame): frame is SsePosition => 'position' in frame;

/**
 * Server-Sent Events framing (the WHATWG event-stream format), fed decoded text in chunks of any
 * size: a line may end with LF, CRLF or CR, and a chunk may end anywhere, CRLF included.
 */
export class SseParser {
  private buffer = '';
  private id: string | undefined;
  private event: string | undefined;
  private data: string[] = [];
  /** Whether the frame being read has an id line of its own (the id itself carries over, as EventSource's). */
  private idInFrame = false;

  /**
   * The frames the text completes, in order: messages, and id-only frames as positions; comments
   * (heartbeats) and frames with neither data nor an id of their own yield nothing.
   */
  push(text: string): SseFrame[] {
    this.buffer += text;
    const messages: SseFrame[] = [];
    let start = 0;
    for (;;) {
      const end = this.lineEnd(start);
      if (end === -1) break;
      const line = this.buffer.slice(start, end);
      start = end + (this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1);
      const message = this.line(line);
      if (message) messages.push(message);
    }
    this.buffer = this.buffer.slice(start);
    return messages;
  }

  /** The index of the next line break from `start`; a CR that ends the buffer waits for a possible LF. */
  private lineEnd(start: number): number {
    for (let i = start; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c === '\n') return i;
      if (c === '\r') return i + 1 < this.buffer.length ? i : -1;
    }
    return -1;
  }

  private line(line: string): SseFrame | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
      this.idInFrame = true;
    }
    return null;
  }

  private dispatch(): SseFrame | null {
    let frame: SseFrame | null = null;
    if (this.data.length) frame = { id: this.id, event: this.event, data: this.data.join('\n') };
    else if (this.idInFrame && this.id !== undefined) frame = { position: this.id };
    this.event = undefined;
    this.data = [];
    this.idInFrame = false;
    return frame;
  }
}
