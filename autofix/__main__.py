from autofix.console import main

raise SystemExit(main())
