document.getElementById('app')!.textContent = 'TabForge is starting…';
