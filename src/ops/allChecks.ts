// Imports every op's self-check registrations (side effects). The page worker and tests import this.
import './runtimeCheck';
import './checks/basicChecks';
import './checks/lossOptimizerChecks';
import './checks/attentionChecks';
