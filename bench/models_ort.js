// ONNX Runtime's side of //bench:models: loads each OUT/NAME.onnx in onnxruntime-node (CPU
// execution provider, all graph optimizations, THREADS intra-op threads, sequential; IDLE
// "default" keeps ONNX Runtime's own idle policy, its threads spinning a while before they block,
// "passive" makes them block at once), prints "ready", then answers each stdin line
// "NAME WARMUP COUNT [BATCH]" (BATCH: the size of a model's symbolic batch, default 1) with WARMUP
// untimed runs, then a JSON object: "ms", COUNT latencies in
// milliseconds, and "cpu_ms", the CPU time the process spent over them, so the caller can
// interleave its runs with Tessera's run by run and check the cores each side used.
// Usage: node models_ort.js OUT THREADS IDLE NAME...  (onnxruntime-node from bench/.ort: see
// docs/benchmarks.md)
const path = require('path');
const readline = require('readline');
const ort = require(path.join(__dirname, '.ort', 'node_modules', 'onnxruntime-node'));

// The input at `batch` (the CNNs take 1x3x224x224, the encoder 1x128x768; a symbolic dimension
// is the batch), made once per batch.
function feedsAt(s, batch) {
  if (!s.feeds[batch]) {
    const meta = s.session.inputMetadata[0];
    const shape = meta.shape.map((d) => (typeof d === 'number' ? d : batch));
    const size = shape.reduce((a, b) => a * b, 1);
    const x = new ort.Tensor('float32', new Float32Array(size).map(Math.random), shape);
    s.feeds[batch] = {[meta.name]: x};
  }
  return s.feeds[batch];
}

async function main() {
  const [outDir, threadsArg, idle, ...names] = process.argv.slice(2);
  const threads = parseInt(threadsArg, 10);
  const sessions = {};
  for (const name of names) {
    let session;
    try {
      session = await ort.InferenceSession.create(path.join(outDir, name + '.onnx'), {
        executionProviders: ['cpu'],
        graphOptimizationLevel: 'all',
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        ...(idle === 'passive' ?
                {extra: {session: {intra_op: {allow_spinning: '0'}, inter_op: {allow_spinning: '0'}}}} :
                {}),
      });
    } catch (e) {
      // Answered with no times: the caller leaves ONNX Runtime's column out for this model.
      console.error(`models_ort.js: ${name}: ONNX Runtime refused it: ${e.message}`);
      continue;
    }
    sessions[name] = {session, feeds: {}};
    for (let i = 0; i < 3; ++i) await session.run(feedsAt(sessions[name], 1));  // warm-up
  }
  console.log('ready');
  const lines = readline.createInterface({input: process.stdin});
  for await (const line of lines) {
    const [name, warmupArg, countArg, batchArg] = line.trim().split(/\s+/);
    const s = sessions[name];
    if (!s) {
      console.log(JSON.stringify({ms: [], cpu_ms: 0}));
      continue;
    }
    const feeds = feedsAt(s, batchArg ? parseInt(batchArg, 10) : 1);
    for (let i = 0; i < parseInt(warmupArg, 10); ++i) await s.session.run(feeds);
    const ms = [];
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < parseInt(countArg, 10); ++i) {
      const start = process.hrtime.bigint();
      await s.session.run(feeds);
      ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const cpu = process.cpuUsage(cpuStart);
    console.log(JSON.stringify({ms, cpu_ms: (cpu.user + cpu.system) / 1e3}));
  }
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
