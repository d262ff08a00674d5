import { CallAbort } from '../../src/upstreams/callSignal';

describe('CallAbort', () => {
  const listener = () => {
    const heard: number[] = [];
    return { heard, handleEvent: () => heard.push(heard.length + 1) };
  };

  it('tells each listener once, with its reason, and stays aborted', () => {
    const abort = new CallAbort();
    const [a, b] = [listener(), listener()];
    abort.addEventListener('abort', a);
    abort.addEventListener('abort', a);
    abort.addEventListener('abort', b);
    expect(abort.aborted).toBe(false);
    const reason = new Error('deadline');
    abort.abort(reason);
    abort.abort(new Error('again'));
    expect([a.heard, b.heard]).toEqual([[1], [1]]);
    expect(abort).toMatchObject({ aborted: true, reason });
  });

  it('does not tell a listener that was removed, nor keep it', () => {
    const abort = new CallAbort();
    const [kept, removed] = [listener(), listener()];
    abort.addEventListener('abort', removed);
    abort.addEventListener('abort', kept);
    abort.removeEventListener('abort', removed);
    abort.abort();
    expect([kept.heard, removed.heard]).toEqual([[1], []]);
    expect(abort.reason).toMatchObject({ name: 'AbortError' });
  });

  it('does not tell a listener that an earlier one removed while it was told', () => {
    const abort = new CallAbort();
    const later = listener();
    abort.addEventListener('abort', { handleEvent: () => abort.removeEventListener('abort', later) });
    abort.addEventListener('abort', later);
    abort.abort();
    expect(later.heard).toEqual([]);
  });

  it('tells every listener when one throws, then throws its error', () => {
    const abort = new CallAbort();
    const after = listener();
    const broken = new Error('listener broke');
    abort.addEventListener('abort', {
      handleEvent: () => {
        throw broken;
      },
    });
    abort.addEventListener('abort', after);
    expect(() => abort.abort()).toThrow(broken);
    expect([after.heard, abort.aborted]).toEqual([[1], true]);
  });

  it('lets a listener remove itself while it is told', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    const first = { handleEvent: () => (heard.push('first'), abort.removeEventListener('abort', first)) };
    abort.addEventListener('abort', first);
    abort.addEventListener('abort', { handleEvent: () => heard.push('second') });
    abort.abort();
    expect(heard).toEqual(['first', 'second']);
  });
});
