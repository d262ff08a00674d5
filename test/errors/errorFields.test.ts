import { runInNewContext } from 'node:vm';
import { codeOf, messageOf, nameOf } from '../../src/errors/errorFields';

describe('errorFields', () => {
  it('reads message, code and name of an error from another realm, where instanceof Error fails', () => {
    const foreign: unknown = runInNewContext("Object.assign(new Error('no such file'), { code: 'ENOENT', name: 'SystemError' })");
    expect(foreign instanceof Error).toBe(false);
    expect([messageOf(foreign), codeOf(foreign), nameOf(foreign)]).toEqual(['no such file', 'ENOENT', 'SystemError']);
  });

  it('gives the text of a thrown value that is no error, and no code or name', () => {
    expect([messageOf('four'), codeOf('four'), nameOf(4)]).toEqual(['four', undefined, undefined]);
    expect(codeOf({ code: 7 })).toBeUndefined();
  });
});
