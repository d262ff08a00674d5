import { afterAnswer } from '../../src/pipeline/streamEnd';
import type { StreamResult } from '../../src/pipeline/stream';
import type { GraphqlResponse } from '../../src/pipeline/types';

async function* parts(count: number): AsyncGenerator<StreamResult> {
  for (let i = 0; i < count; i++) yield { data: { i }, hasNext: i < count - 1 };
}

const whole = (): GraphqlResponse => ({ status: 200, headers: new Map(), body: '{}' });
const streamed = (count: number): GraphqlResponse => ({ status: 200, headers: new Map(), body: '', stream: { kind: 'incremental', results: parts(count) } });

describe('afterAnswer', () => {
  it('runs at once for a whole answer', async () => {
    const done: string[] = [];
    const response = whole();
    expect(await afterAnswer(response, async () => void done.push('then'))).toBe(response);
    expect(done).toEqual(['then']);
  });

  it('runs once a stream has given its last result, not before', async () => {
    const done: string[] = [];
    const response = await afterAnswer(streamed(3), async () => void done.push('then'));
    const seen: unknown[] = [];
    for await (const part of response.stream!.results) {
      seen.push(part.data);
      expect(done).toEqual([]);
    }
    expect(seen).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(done).toEqual(['then']);
  });

  it('runs when the reader stops early (a client that left)', async () => {
    const done: string[] = [];
    const response = await afterAnswer(streamed(3), async () => void done.push('then'));
    for await (const part of response.stream!.results) if (part.data) break;
    expect(done).toEqual(['then']);
  });
});
