// Prints the file name of the report.
const file = path.basename('/data/out/report.txt');
console.log(file);
