import { createLogger } from '../../src/logger';
import { openRedisConnection, type RedisConnection } from '../../src/redis/connection';
import { eventually, sleep } from '../support/gatewayProcess';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';

describeWithRedis('the Redis connection\'s subscriptions')('the Redis connection\'s subscriptions', () => {
  let redis: RedisServer;
  let proxy: TcpProxy;
  const connections: RedisConnection[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  beforeEach(async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((c) => c.close()));
    proxy.resume();
    await proxy.close();
  });

  afterAll(async () => {
    await redis.stop();
  });

  it('keeps a channel subscribed while its connection is still being set up (ioredis writes SUBSCRIBE before its handshake is done)', async () => {
    const logger = createLogger({ level: 'silent' });
    const publisher = openRedisConnection({ url: redis.url, logger });
    connections.push(publisher);
    // Redis answers nothing yet: the subscribe connection is connected but not ready, as on a busy machine.
    proxy.stall();
    const subscriber = openRedisConnection({ url: `redis://127.0.0.1:${proxy.port}`, logger });
    connections.push(subscriber);
    const heard: string[] = [];
    void subscriber.subscribe('first', (m) => heard.push(`first ${m}`));
    await sleep(100);
    void subscriber.subscribe('second', (m) => heard.push(`second ${m}`));
    proxy.resume();
    expect(await eventually(() => publisher.available)).toBe(true);
    // Published until heard on both channels: a subscription that was lost is never heard.
    expect(
      await eventually(async () => {
        await publisher.client.publish('first', 'hello');
        await publisher.client.publish('second', 'hello');
        return heard.includes('first hello') && heard.includes('second hello');
      }, 5000),
    ).toBe(true);
  });
});
