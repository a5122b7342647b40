import { describe, expect, it } from 'vitest';
import { DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES, DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES, parseEnv } from '../src/env';

describe('PUBLIC_URL', () => {
  it('is optional: unset, the server uses http://localhost:<the port bound>', () => {
    expect(parseEnv({}).publicUrl).toBeUndefined();
    expect(parseEnv({ PUBLIC_URL: '' }).publicUrl).toBeUndefined();
  });

  it('takes an http or https URL, a path included', () => {
    expect(parseEnv({ PUBLIC_URL: 'https://errors.example.com/collector' }).publicUrl).toBe(
      'https://errors.example.com/collector',
    );
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => parseEnv({ PUBLIC_URL: 'errors.example.com' })).toThrow(/PUBLIC_URL/);
    expect(() => parseEnv({ PUBLIC_URL: 'ftp://errors.example.com' })).toThrow(/PUBLIC_URL/);
  });
});

describe('UPLOAD_MAX_IN_FLIGHT_BYTES', () => {
  it('defaults to 64 MiB apart from ingestion’s, and takes at least one largest upload request (33 MiB)', () => {
    expect(parseEnv({}).uploadMaxInFlightBytes).toBe(DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES);
    expect(parseEnv({ UPLOAD_MAX_IN_FLIGHT_BYTES: String(33 * 1024 * 1024) }).uploadMaxInFlightBytes).toBe(
      33 * 1024 * 1024,
    );
    for (const value of ['1048576', '64MiB', '-1'])
      expect(() => parseEnv({ UPLOAD_MAX_IN_FLIGHT_BYTES: value }), value).toThrow(/UPLOAD_MAX_IN_FLIGHT_BYTES/);
  });
});

describe('INGEST_MAX_IN_FLIGHT_BYTES', () => {
  it('defaults to the documented budget and takes whole bytes from one largest batch (1 MiB) up', () => {
    expect(parseEnv({}).ingestMaxInFlightBytes).toBe(DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES);
    expect(parseEnv({ INGEST_MAX_IN_FLIGHT_BYTES: '' }).ingestMaxInFlightBytes).toBe(
      DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES,
    );
    expect(parseEnv({ INGEST_MAX_IN_FLIGHT_BYTES: '1048576' }).ingestMaxInFlightBytes).toBe(1024 * 1024);
    expect(parseEnv({ INGEST_MAX_IN_FLIGHT_BYTES: '268435456' }).ingestMaxInFlightBytes).toBe(256 * 1024 * 1024);
  });

  it('refuses less than 1 MiB, fractions, units and signs, naming the variable', () => {
    for (const value of ['1048575', '0', '64MiB', '1e8', '-1', '1048576.5']) {
      expect(() => parseEnv({ INGEST_MAX_IN_FLIGHT_BYTES: value }), value).toThrow(/INGEST_MAX_IN_FLIGHT_BYTES/);
    }
  });
});

describe('WRITE_CONCURRENCY', () => {
  it('defaults to two write statements a process while they stay under the cores, one past that, and takes 1 to 16', () => {
    expect(parseEnv({}, 2).writeConcurrency).toBe(2);
    expect(parseEnv({}, 1).writeConcurrency).toBe(2);
    expect(parseEnv({ WORKERS: '1' }, 16).writeConcurrency).toBe(2);
    expect(parseEnv({ WORKERS: '2' }, 2).writeConcurrency).toBe(1);
    expect(parseEnv({ WORKERS: '4' }, 2).writeConcurrency).toBe(1);
    expect(parseEnv({ WORKERS: '2' }, 16).writeConcurrency).toBe(2);
    expect(parseEnv({ WORKERS: '4' }, 16).writeConcurrency).toBe(2);
    expect(parseEnv({ WORKERS: '8' }, 16).writeConcurrency).toBe(1);
    expect(parseEnv({ WORKERS: '4', WRITE_CONCURRENCY: '2' }, 2).writeConcurrency).toBe(2);
    expect(parseEnv({ WORKERS: '1', WRITE_CONCURRENCY: '1' }, 16).writeConcurrency).toBe(1);
    expect(parseEnv({ WRITE_CONCURRENCY: '1' }).writeConcurrency).toBe(1);
    expect(parseEnv({ WRITE_CONCURRENCY: '16' }).writeConcurrency).toBe(16);
  });

  it('refuses 0, more than 16 and anything but a whole number, naming the variable', () => {
    for (const value of ['0', '17', 'two', '1.5', '-1'])
      expect(() => parseEnv({ WRITE_CONCURRENCY: value }), value).toThrow(/WRITE_CONCURRENCY/);
  });
});

describe('ANSWER_CHECKS', () => {
  it('is off unless asked for: the service sends answers as built; strict checks each against its schema', () => {
    expect(parseEnv({}).answerChecks).toBe('off');
    expect(parseEnv({ ANSWER_CHECKS: 'strict' }).answerChecks).toBe('strict');
    expect(() => parseEnv({ ANSWER_CHECKS: 'on' })).toThrow(/ANSWER_CHECKS/);
  });
});
