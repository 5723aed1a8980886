"""``python -m rag_eval_adapters.cli``: the ``rag-eval`` command."""

import sys

from . import main

sys.exit(main())
