require('./modules/a');
