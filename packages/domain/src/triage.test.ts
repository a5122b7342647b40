import { describe, expect, it } from 'vitest';
import { dailySeries, issueSeriesDays, seriesDayStarts } from './triage';
import { describeUserAgent } from './user-agent';

const DAY = 86_400_000;

describe('dailySeries', () => {
  it('has every one of the 30 UTC days up to today, oldest first, missing days at zero', () => {
    const now = Date.UTC(2026, 10, 23, 15, 30);
    const today = Math.floor(now / DAY);
    const series = dailySeries(
      [
        { day: today, events: 4 },
        { day: today - 29, events: 2 },
        { day: today - 30, events: 99 },
      ],
      now,
    );
    expect(series).toHaveLength(issueSeriesDays);
    expect(series[0]).toEqual({ start: (today - 29) * DAY, events: 2 });
    expect(series.at(-1)).toEqual({ start: Date.UTC(2026, 10, 23), events: 4 });
    expect(series.slice(1, -1).every((day) => day.events === 0)).toBe(true);
    expect(series.map((day) => day.start)).toEqual(seriesDayStarts(now));
    expect(series.every((day, i) => i === 0 || day.start - (series[i - 1]?.start ?? 0) === DAY)).toBe(true);
  });
});

describe('describeUserAgent', () => {
  it('names browser (major version) and OS', () => {
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      ),
    ).toEqual({ browser: 'Chrome 131', os: 'Windows 10' });
    expect(
      describeUserAgent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      ),
    ).toEqual({ browser: 'Safari 18', os: 'iOS 18.1' });
  });

  it('says unknown rather than failing on empty or odd agents', () => {
    expect(describeUserAgent('')).toEqual({ browser: 'Unknown browser', os: 'Unknown OS' });
    expect(describeUserAgent(undefined)).toEqual({ browser: 'Unknown browser', os: 'Unknown OS' });
    expect(describeUserAgent('curl/8.5.0').os).toBe('Unknown OS');
  });
});
