/** One dispatched Server-Sent Events message: the fields the feed uses. */
export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * Server-Sent Events framing (the WHATWG event-stream format), fed decoded text in chunks of any
 * size: a line may end with LF, CRLF or CR, and a chunk may end anywhere, CRLF included.
 */
export class SseParser {
  private buffer = '';
  private id: string | undefined;
  private event: string | undefined;
  private data: string[] = [];
  private lastId: string | undefined;

  /** The messages the text completes; comments (heartbeats) and empty messages yield nothing. */
  push(text: string): SseMessage[] {
    this.buffer += text;
    const messages: SseMessage[] = [];
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

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return null;
  }

  /**
   * The id of the last complete message, data or not, as EventSource's lastEventId: a message with
   * only an id (how a live-only stream names where it starts) dispatches nothing but sets it.
   */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  private dispatch(): SseMessage | null {
    this.lastId = this.id;
    const message = this.data.length ? { id: this.id, event: this.event, data: this.data.join('\n') } : null;
    this.event = undefined;
    this.data = [];
    return message;
  }
}
