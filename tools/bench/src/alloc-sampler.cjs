// Preloaded into the collector by `pnpm bench --sentry --alloc-profile` (node --require): V8's sampling heap profiler
// from start to exit, objects that garbage collection has freed since included, written as a .heapprofile (the JSON
// DevTools reads) to ALLOC_PROFILE_FILE when the process exits. So the profile says where memory was allocated, which is
// what young-generation collections pay for, not what is alive at the end. The in-process inspector session answers
// synchronously, which is what lets the exit handler write it.
const { writeFileSync } = require('node:fs');
const inspector = require('node:inspector');

const file = process.env.ALLOC_PROFILE_FILE;
if (file) {
  const session = new inspector.Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 32 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  process.once('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
