/**
 * Server-sent events parser for OpenAI-style streams. Bytes arrive in arbitrary chunks (a line, an
 * event, or a UTF-8 character may be split across two), lines may end in LF, CRLF or CR, and servers
 * interleave `: keep-alive` comments. The parser never throws: it yields each complete event's data.
 */

export interface SseEvent {
  /** The event's `data:` lines joined with "\n". */
  data: string;
  /** The `event:` field, when the server sent one (OpenAI streams do not). */
  event?: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private dataLines: string[] = [];
  private eventName: string | undefined;
  /** A CR ended the last chunk: a LF at the start of the next one belongs to the same line break. */
  private pendingCr = false;

  /** Feeds bytes (or text); returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    return this.drainLines();
  }

  /** Ends the stream: a final event without its blank line still counts (some servers omit it). */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    const events = this.drainLines();
    if (this.buffer.length > 0) {
      this.takeLine(this.buffer, events);
      this.buffer = '';
    }
    this.dispatch(events);
    return events;
  }

  private drainLines(): SseEvent[] {
    const events: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (m[0] === '\r' && m.index === this.buffer.length - 1) {
        this.pendingCr = true;
        this.takeLine(this.buffer.slice(0, m.index), events);
        this.buffer = '';
        break;
      }
      this.takeLine(this.buffer.slice(0, m.index), events);
      this.buffer = this.buffer.slice(m.index + m[0].length);
    }
    return events;
  }

  private takeLine(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) return; // a comment, e.g. keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.eventName = value;
    // `id` and `retry` do not matter for a one-shot completion stream.
  }

  private dispatch(events: SseEvent[]): void {
    if (this.dataLines.length > 0) {
      const event: SseEvent = { data: this.dataLines.join('\n') };
      if (this.eventName !== undefined) event.event = this.eventName;
      events.push(event);
    }
    this.dataLines = [];
    this.eventName = undefined;
  }
}
