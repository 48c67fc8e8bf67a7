import { main } from './program.js';

// exitCode rather than exit(): lets stdout drain and open handles close first.
process.exitCode = await main(process.argv);
