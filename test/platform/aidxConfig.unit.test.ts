import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

describe('AIDX settings (docs/delivery.md "AIDX")', () => {
  it('defaults: target off, topic aidx, originator MSGX, no airport', () => {
    const cfg = loadConfig({});
    expect(cfg.aidxOut).toBe(false);
    expect(cfg.kafka.topicAidx).toBe('aidx');
    expect(cfg.aidxOriginator).toBe('MSGX');
    expect(cfg.airportIata).toBeUndefined();
  });

  it('reads the airport code, the switch, the topic and the originator', () => {
    const cfg = loadConfig({ MSGX_AIRPORT_IATA: ' PEK ', MSGX_AIDX_OUT: 'yes', MSGX_KAFKA_TOPIC_AIDX: 'flight.aidx', MSGX_AIDX_ORIGINATOR: 'BCIA' });
    expect([cfg.airportIata, cfg.aidxOut, cfg.kafka.topicAidx, cfg.aidxOriginator]).toEqual(['PEK', true, 'flight.aidx', 'BCIA']);
  });

  it('refuses a bad airport code, a too long originator, and the target without an airport', () => {
    expect(() => loadConfig({ MSGX_AIRPORT_IATA: 'pek' })).toThrow(/three-letter IATA airport code/);
    expect(() => loadConfig({ MSGX_AIRPORT_IATA: 'ZBAA' })).toThrow(ConfigError);
    expect(() => loadConfig({ MSGX_AIDX_ORIGINATOR: 'X'.repeat(17) })).toThrow(/1 to 16 characters/);
    expect(() => loadConfig({ MSGX_AIDX_OUT: 'true' })).toThrow(/needs MSGX_AIRPORT_IATA/);
  });
});
