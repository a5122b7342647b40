// The breadcrumb ring and what a breadcrumb may carry.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BreadcrumbRing, MAX_BREADCRUMBS, normalizeBreadcrumb } from './breadcrumbs';

describe('breadcrumb ring', () => {
  it('keeps the last `capacity` breadcrumbs, oldest first, whatever was added', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 120 }), fc.array(fc.integer(), { maxLength: 400 }), (capacity, values) => {
        const ring = new BreadcrumbRing(capacity);
        for (const value of values) ring.add({ message: String(value) });
        const kept = Math.min(capacity, MAX_BREADCRUMBS);
        expect(ring.snapshot().map((crumb) => crumb.message)).toEqual(
          values.slice(Math.max(0, values.length - kept)).map(String),
        );
      }),
    );
  });

  it('gives a copy: later breadcrumbs do not change an event already captured', () => {
    const ring = new BreadcrumbRing(2);
    ring.add({ message: 'a' });
    const snapshot = ring.snapshot();
    ring.add({ message: 'b' });
    ring.add({ message: 'c' });
    expect(snapshot.map((crumb) => crumb.message)).toEqual(['a']);
    expect(ring.snapshot().map((crumb) => crumb.message)).toEqual(['b', 'c']);
  });

  it('never holds more than the server takes per event', () => {
    expect(new BreadcrumbRing(1000).capacity).toBe(MAX_BREADCRUMBS);
    expect(new BreadcrumbRing(-5).capacity).toBe(0);
  });
});

describe('normalizeBreadcrumb', () => {
  it('fits the server limits and stamps a time', () => {
    const crumb = normalizeBreadcrumb(
      { category: 'c'.repeat(100), level: 'l'.repeat(40), message: 'm'.repeat(5000) },
      42,
    );
    expect(crumb.category).toHaveLength(64);
    expect(crumb.level).toHaveLength(16);
    expect(crumb.message).toHaveLength(1024);
    expect(crumb.timestamp).toBe(42);
  });

  it('copies data, and drops data that cannot travel', () => {
    const data = { cart: 3 };
    const crumb = normalizeBreadcrumb({ data }, 0);
    data.cart = 4;
    expect(crumb.data).toEqual({ cart: 3 });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(normalizeBreadcrumb({ data: circular }, 0).data).toBeUndefined();
    expect(normalizeBreadcrumb({ data: { big: 1n } as unknown as Record<string, unknown> }, 0).data).toBeUndefined();
    expect(normalizeBreadcrumb({ data: { text: 'x'.repeat(5000) } }, 0).data).toBeUndefined();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) deep = { deep };
    expect(normalizeBreadcrumb({ data: deep }, 0).data).toBeUndefined();
    expect(normalizeBreadcrumb({ data: [1, 2] as unknown as Record<string, unknown> }, 0).data).toBeUndefined();
  });
});
