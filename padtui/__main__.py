from padtui.cli import main

raise SystemExit(main())
