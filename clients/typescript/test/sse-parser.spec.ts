import { SseParser } from '../src/sse-parser.js';

describe('SseParser', () => {
  it('reads the service frames: id, event and data; comments (heartbeats) yield nothing', () => {
    const sut = new SseParser();
    const messages = sut.push(':ok\n\nid: 0190aa\nevent: member.joined\ndata: {"a":1}\n\n:heartbeat\n\n');
    expect(messages).toEqual([{ id: '0190aa', event: 'member.joined', data: '{"a":1}' }]);
  });

  it('a message split anywhere, one character at a time included, comes out once, whole', () => {
    const text = 'id: 1\nevent: e\ndata: {"name":"Knights of Dawn"}\n\nid: 2\ndata: x\n\n';
    const sut = new SseParser();
    const messages = [...text].flatMap((c) => sut.push(c));
    expect(messages).toEqual([
      { id: '1', event: 'e', data: '{"name":"Knights of Dawn"}' },
      { id: '2', event: undefined, data: 'x' },
    ]);
  });

  it('CRLF and CR end lines too; a CR ending a chunk waits for a possible LF', () => {
    const sut = new SseParser();
    expect(sut.push('id: 1\r\ndata: a\r')).toEqual([]);
    expect(sut.push('\n\r\nid: 2\rdata: b\r\r')).toEqual([{ id: '1', event: undefined, data: 'a' }]);
    expect(sut.push('data: c\n\n')).toEqual([
      { id: '2', event: undefined, data: 'b' },
      { id: '2', event: undefined, data: 'c' },
    ]);
  });

  it('joins data lines with LF, takes one optional space after the colon, and keeps the last id for later messages', () => {
    const sut = new SseParser();
    expect(sut.push('id: 7\ndata:first\ndata:  second\n\ndata: next\n\n')).toEqual([
      { id: '7', event: undefined, data: 'first\n second' },
      { id: '7', event: undefined, data: 'next' },
    ]);
  });

  it('a message without data is not dispatched, and its event type does not leak into the next', () => {
    const sut = new SseParser();
    expect(sut.push('event: lonely\n\ndata: d\n\n')).toEqual([{ id: undefined, event: undefined, data: 'd' }]);
  });

  it('an id-only frame comes out as a position once its blank line arrives, and its id carries over to later messages', () => {
    const sut = new SseParser();
    expect(sut.push(':ok\n\nid: 0190ff\n')).toEqual([]);
    expect(sut.push('\n')).toEqual([{ position: '0190ff' }]);
    expect(sut.push('event: notifications.read\ndata: {}\n\nid: 0191aa\ndata: x\n\n')).toEqual([
      { id: '0190ff', event: 'notifications.read', data: '{}' },
      { id: '0191aa', event: undefined, data: 'x' },
    ]);
    // A frame without data and without an id line of its own is nothing.
    expect(sut.push('event: e\n\n')).toEqual([]);
  });
});
