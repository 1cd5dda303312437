import { hostname, userInfo } from 'node:os';
import { cliOperator } from './cli-operator';

describe('cliOperator', () => {
  it('is cli, without an operator id, from the OS account and host the command runs on', () => {
    expect(cliOperator()).toEqual({ id: null, name: 'cli', role: 'owner', origin: { osUser: userInfo().username, host: hostname() } });
  });

  it('names an account without a passwd entry by $USER, else by its uid', () => {
    const noEntry = () => {
      throw new Error('ENOENT: no such file or directory, uv_os_get_passwd');
    };
    expect(cliOperator({ USER: 'deploy' }, noEntry).origin).toEqual({ osUser: 'deploy', host: hostname() });
    expect(cliOperator({}, noEntry).origin?.osUser).toBe(`uid ${process.getuid!()}`);
  });
});
